package main

import (
	"github.com/k0rdent/kbook/internal/importmkdocs"
	"github.com/spf13/cobra"
)

func newImportMkDocsCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:  "mkdocs DIR",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := importmkdocs.Import(cmd.Context(), importmkdocs.Options{Dir: args[0], Out: out})
			if err != nil {
				return usageError(err)
			}
			return rep.Write(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "`directory` to write the docs repository to; new or empty (default: DIR's name + -kbook)")
	return cmd
}
