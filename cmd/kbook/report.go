package main

import (
	"github.com/k0rdent/kbook/internal/report/merge"
	"github.com/spf13/cobra"
)

func newReportMergeCmd() *cobra.Command {
	var o merge.Options
	cmd := &cobra.Command{
		Use:  "merge REPORT.json...",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Reports, o.IOStreams = args, streams(cmd)
			passed, err := merge.Merge(cmd.Context(), o)
			if err != nil {
				return exit(cmd.Context(), err)
			}
			return result(nil, !passed)
		},
	}
	cmd.Flags().StringVar(&o.JSON, "json", "", "write the merged JSON report to `FILE` (- for stdout)")
	cmd.Flags().StringVar(&o.JUnit, "junit", "", "write the merged JUnit XML report to `FILE` (- for stdout)")
	return cmd
}
