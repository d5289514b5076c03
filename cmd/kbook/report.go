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
			merged, err := report.MergeInto(jsonOut, junitOut, args...)
			if err != nil {
				return failure(err)
			}
			fmt.Fprint(cmd.OutOrStdout(), console.Summary(merged))
			return result(nil, merged.Summary().Failed > 0)
		},
	}
	cmd.Flags().StringVar(&jsonOut, "json", "", "write the merged JSON report to `FILE`")
	cmd.Flags().StringVar(&junitOut, "junit", "", "write the merged JUnit XML report to `FILE`")
	return cmd
}
