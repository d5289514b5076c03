package main

import (
	"fmt"
	"path/filepath"

	"github.com/k0rdent/kbook/internal/plural"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/spf13/cobra"
)

func newImportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use: "import",
	}
	cmd.AddCommand(newImportMkDocsCmd())
	return cmd
}

func newImportMkDocsCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:  "mkdocs DIR",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if out == "" {
				abs, err := filepath.Abs(dir)
				if err != nil {
					return usageError(err)
				}
				out = filepath.Base(abs) + "-kbook"
			}
			rep, err := site.ImportMkDocs(dir, out)
			if err != nil {
				return usageError(site.ErrorUnder(dir, err))
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "kbook import: wrote %s: %s, %s, %s\n", rep.Out, plural.Count(rep.Pages, "page"),
				plural.Count(rep.Runbooks, "runbook"), plural.Count(rep.Assets, "file"))
			if len(rep.Notes) > 0 {
				fmt.Fprintf(w, "needs a hand (%d):\n", len(rep.Notes))
				for _, n := range rep.Notes {
					fmt.Fprintf(w, "  %s\n", n)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "`directory` to write the docs repository to; new or empty (default: DIR's name + -kbook)")
	return cmd
}
