package main

import (
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
	root.AddCommand(newRunCmd(), newCheckCmd(), newClusterCmd(), newTemplateCmd(), newReportCmd(), newVersionCmd(), newGenDocsCmd())
	root.AddCommand(newBuildCmd(), newServeCmd(), newInitCmd(), newImportCmd())
	root.AddCommand(newProviderCmd())
	root.AddCommand(newChainCmd(), newUpgradeCmd(), newStatusCmd())
	// The commands' words are clidocs' help files, which the CLI
	// reference pages are generated from too. Every error is a defect of
	// the embedded files, which TestHelpTexts fails on.
	_ = clidocs.Describe(root)
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:  "version",
		Args: cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			cmd.Printf("kbook %s (%s)\n", version.String(), version.Platform())
		},
	}
}
