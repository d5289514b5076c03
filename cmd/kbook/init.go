package main

import (
	"github.com/k0rdent/kbook/internal/docs/scaffold"
	"github.com/k0rdent/kbook/internal/version"
	"github.com/spf13/cobra"
)

func newInitDocsCmd() *cobra.Command {
	var title string
	cmd := &cobra.Command{
		Use:  "docs DIR",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return to{cmd}.created(scaffold.New(cmd.Context(), scaffold.Options{Dir: args[0], Title: title, KbookVersion: version.String()}))
		},
	}
	cmd.Flags().StringVar(&title, "title", "", "site title (default: the directory name)")
	return cmd
}
