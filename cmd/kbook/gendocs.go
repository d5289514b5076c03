package main

import (
	"os"

	"github.com/k0rdent/kbook/internal/clidocs"
	"github.com/spf13/cobra"
)

// newGenDocsCmd writes the CLI reference pages of the docs site, so they
// are generated from the commands and cannot drift from them, and the
// rule catalogues whose flags name a file.
func newGenDocsCmd() *cobra.Command {
	files := make([]string, len(clidocs.Catalogues))
	cmd := &cobra.Command{
		Use:    "gen-docs DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := clidocs.Commands(cmd.Root(), args[0]); err != nil {
				return err
			}
			for i, c := range clidocs.Catalogues {
				if files[i] != "" {
					if err := os.WriteFile(files[i], c.Page(), 0o644); err != nil {
						return err
					}
				}
			}
			return nil
		},
	}
	for i, c := range clidocs.Catalogues {
		cmd.Flags().StringVar(&files[i], c.Flag, "", "also write the "+c.Of+" rule catalogue to this `file`")
	}
	return cmd
}
