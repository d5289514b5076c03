package main

import (
	"fmt"

	"github.com/k0rdent/kbook/internal/clidocs"
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
	return root
}

// group is a command that holds commands: kbook cluster, template...
func group(use string, cmds ...*cobra.Command) *cobra.Command {
	g := &cobra.Command{Use: use}
	g.AddCommand(cmds...)
	return g
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:  "version",
		Args: cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			// On stdout, a result: cobra's cmd.Printf writes to stderr.
			fmt.Fprintln(cmd.OutOrStdout(), version.Line())
		},
	}
}
