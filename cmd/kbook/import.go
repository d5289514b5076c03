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
		Use:   "import",
		Short: "Turn docs of another tool into a kbook docs repository",
	}
	cmd.AddCommand(newImportMkDocsCmd())
	return cmd
}

func newImportMkDocsCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "mkdocs DIR",
		Short: "Write an MkDocs project as a kbook docs repository, in Hugo-native Markdown",
		Long: `Write the MkDocs project in DIR (the folder holding mkdocs.yml) as a kbook
docs repository in --out: kbook.yaml (title, description, repository and
link policy from mkdocs.yml), content/ with front matter titles and weights
from the nav, a folder's index.md or README.md as its _index.md, the pages'
MkDocs-material syntax (admonitions, tabs, snippets, macros...) translated,
docs_dir's images and files beside the pages, and the pages with testscript
blocks in runbooks/.

kbook build works on an MkDocs project as it is; import is for teams that
leave MkDocs syntax behind. Nothing is written unless the whole import
succeeds. What needed a hand is listed: syntax kbook does not translate
(per kind, with a count), macro modules (Python) that cannot run, plugins
and nav entries that have no kbook equivalent.

Exit status: 0 written, 2 bad input (mkdocs.yml or a page, at its
file:line; --out not empty).`,
		Example: `  # Import ../k0s into k0s-docs/, then preview it
  kbook import mkdocs ../k0s --out k0s-docs && kbook serve k0s-docs`,
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
