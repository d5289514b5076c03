package main

import (
	"io"

	"github.com/k0rdent/kbook/internal/check"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/spf13/cobra"
)

func newCheckCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "check [PATH...]"}
	var overlays []string
	checkCmd(cmd, check.Registry, func(cmd *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		return one(check.Check(cmd.Context(), check.Options{Paths: args, Overlays: overlays}))
	})
	overlayFlag(cmd.Flags(), &overlays)
	return cmd
}
