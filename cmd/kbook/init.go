package main

import (
	"github.com/k0rdent/kbook/internal/site/scaffold"
	"github.com/k0rdent/kbook/internal/version"
	"github.com/spf13/cobra"
)

func newInitCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Scaffold new repositories",
	}
	cmd.AddCommand(newInitDocsCmd())
	return cmd
}

func newInitDocsCmd() *cobra.Command {
	var title string
	cmd := &cobra.Command{
		Use:   "docs DIR",
		Short: "Scaffold a docs repository: kbook.yaml, a home page, a first runbook and a publishing workflow",
		Long: `Create a docs repository in DIR: kbook.yaml, content/ with a home page and a
guide, runbooks/ with a first runbook, and .github/workflows/docs.yml, which
runs the runbooks, builds every version and publishes the site to GitHub
Pages. Nothing is written if any of these files exists.`,
		Example: `  kbook init docs acme-docs && cd acme-docs && kbook serve`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return to{cmd}.created(scaffold.New(args[0], scaffold.Options{Title: title, KbookVersion: version.String()}))
		},
	}
	cmd.Flags().StringVar(&title, "title", "", "site title (default: the directory name)")
	return cmd
}
