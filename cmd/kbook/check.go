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
	checkCmd(cmd, check.Registry, func(_ *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		return one(check.Check(args, overlays...))
	})
	overlayFlag(cmd.Flags(), &overlays)
	return cmd
}
