package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/k0rdent/kbook/internal/chain"
	"github.com/k0rdent/kbook/internal/findings"
)

func newChainValidateCmd() *cobra.Command {
	var opts chain.Options
	cmd := &cobra.Command{
		Use:  "validate PATH...",
		Args: cobra.MinimumNArgs(1),
	}
	checkCmd(cmd, chain.Registry, func(cmd *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		opts.Paths = args
		return one(chain.Check(cmd.Context(), opts))
	})
	cmd.Flags().StringVar(&opts.SystemNamespace, "system-namespace", "kcm-system", "kcm's system `namespace` (its webhook checks chains there even when labelled managed)")
	return cmd
}
