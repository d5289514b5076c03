package main

import (
	"time"

	"github.com/k0rdent/kbook/internal/upgrade/window"
	"github.com/spf13/cobra"
)

func newUpgradeWindowCmd() *cobra.Command {
	var (
		exclusions []string
		at, output string
		count      int
	)
	cmd := &cobra.Command{
		Use:  "window SPEC",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := window.Evaluate(args[0], exclusions, at, count, time.Now())
			if err != nil {
				return usageError(err)
			}
			return result(window.Write(cmd.OutOrStdout(), output, rep), !rep.Open)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&exclusions, "exclude", nil, "exclusion `period` START/END (repeatable)")
	fl.StringVar(&at, "at", "", "the `time` to evaluate (RFC 3339, or YYYY-MM-DDTHH:MM in the window's zone; default now)")
	fl.IntVar(&count, "count", 1, "how many next windows to list")
	outputFlag(fl, &output, "text", "json")
	return cmd
}
