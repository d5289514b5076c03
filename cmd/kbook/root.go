package main

import (
	"github.com/k0rdent/kbook/internal/version"
	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "kbook",
		Short: "Executable runbooks and authoring tools for k0rdent",
		Long: `kbook is the k0rdent extension kit.

It runs executable Markdown runbooks (fenced testscript blocks) against real
Kubernetes API servers - a local kube-apiserver, kind, or an existing cluster -
keeps their expected output up to date, and reports what was verified, where
and when. For template authors it scaffolds, validates, renders and packages
custom ClusterTemplates; for provider authors it scaffolds, validates and
checks custom Cluster API providers.`,
		Example: `  # Run every runbook below runbooks/
  kbook run runbooks/

  # Lint runbooks: unexecuted shell blocks, unused files, undeclared tools
  kbook check runbooks/

  # Scaffold a ClusterTemplate chart and check it before installing it
  kbook template init acme-docker && kbook template validate acme-docker`,
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
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the kbook version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			cmd.Printf("kbook %s (%s)\n", version.String(), version.Platform())
		},
	}
}
