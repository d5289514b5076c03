package main

import (
	"fmt"

	"github.com/k0rdent/kbook/internal/console"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/spf13/cobra"
)

func newReportMergeCmd() *cobra.Command {
	var jsonOut, junitOut string
	cmd := &cobra.Command{
		Use:  "merge REPORT.json...",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			merged, err := report.MergeInto(jsonOut, junitOut, cmd.OutOrStdout(), args...)
			if err != nil {
				return failure(err)
			}
			// A report on stdout ("-") keeps stdout for itself.
			summary := cmd.OutOrStdout()
			if jsonOut == report.Stdout || junitOut == report.Stdout {
				summary = cmd.ErrOrStderr()
			}
			fmt.Fprint(summary, console.Summary(merged))
			// A runbook interrupted in a shard has no result: the merge
			// is not a pass.
			s := merged.Summary()
			return result(nil, s.Failed > 0 || s.Interrupted > 0)
		},
	}
	cmd.Flags().StringVar(&jsonOut, "json", "", "write the merged JSON report to `FILE` (- for stdout)")
	cmd.Flags().StringVar(&junitOut, "junit", "", "write the merged JUnit XML report to `FILE` (- for stdout)")
	return cmd
}
