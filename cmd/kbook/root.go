package main

import (
	"github.com/k0rdent/kbook/internal/cli"
	"github.com/k0rdent/kbook/internal/clidocs"
	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/version"
	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "kbook",
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("kbook {{.Version}}\n")
	// --version without the -v shorthand cobra would give it: -v is
	// verbose, as in kubectl and in kbook run (see compatArgs).
	root.Flags().Bool("version", false, "print the kbook version")
	root.PersistentFlags().BoolVar(&output.NoColor, "no-color", false, "no colour in text output (colour only on a terminal, and never with $NO_COLOR set)")
	// The command tree: cobra lists each level's commands by name.
	root.AddCommand(newRunCmd(), newCheckCmd(), newBuildCmd(), newServeCmd(), newStatusCmd(), newVersionCmd(), newGenDocsCmd(),
		group("cluster", newClusterUpCmd(), newClusterDownCmd(), newClusterStatusCmd(), newClusterKubeconfigCmd(), newClusterAssetsCmd(), newClusterImageCmd(), newClusterLoadImageCmd(), newClusterServeCmd()),
		group("template", newTemplateInitCmd(), newTemplateValidateCmd(), newTemplateRenderCmd(), newTemplateManifestCmd(), newTemplatePublishCmd()),
		group("provider", newProviderInitCmd(), newProviderValidateCmd(), newProviderManifestCmd(), newProviderConformanceCmd()),
		group("chain", newChainValidateCmd()),
		group("upgrade", newUpgradeCheckCmd(), newUpgradeApplyCmd(), newUpgradeWindowCmd()),
		group("report", newReportMergeCmd()),
		group("init", newInitDocsCmd()),
		group("import", newImportMkDocsCmd()))
	// The commands' words are clidocs' help files, which the CLI
	// reference pages are generated from too. Every error is a defect of
	// the embedded files, which TestHelpTexts fails on.
	_ = clidocs.Describe(root)
	cli.Complete(root)
	return root
}

// group is a command that holds commands: kbook cluster, template...
func group(use string, cmds ...*cobra.Command) *cobra.Command {
	g := &cobra.Command{Use: use}
	g.AddCommand(cmds...)
	return g
}

func newVersionCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:  "version",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return version.Write(cmd.OutOrStdout(), format) },
	}
	outputFlag(cmd.Flags(), &format, output.Formats...)
	return cmd
}
