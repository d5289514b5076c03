package main

import (
	"fmt"
	"path/filepath"

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
			v := version.String()
			if v == "devel" || v == "" {
				v = "latest"
			}
			names, err := scaffold.Write(args[0], scaffold.Options{Title: title, KbookVersion: v})
			if err != nil {
				return usageError(err)
			}
			out := cmd.OutOrStdout()
			for _, n := range names {
				fmt.Fprintf(out, "created %s\n", filepath.Join(args[0], n))
			}
			fmt.Fprintf(out, "\nNext: cd %s && kbook serve   (then kbook build to write public/)\n", args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&title, "title", "", "site title (default: the directory name)")
	return cmd
}
