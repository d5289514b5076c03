package main

import (
	"fmt"

	"github.com/k0rdent/kbook/internal/console"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/spf13/cobra"
)

func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "report"}
	var jsonOut, junitOut string
	merge := &cobra.Command{
		Use:  "merge REPORT.json...",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			merged, err := report.MergeInto(jsonOut, junitOut, args...)
			if err != nil {
				return failure(err)
			}
			fmt.Fprint(cmd.OutOrStdout(), console.Summary(merged))
			if merged.Summary().Failed > 0 {
				return code(findings.ExitErrors)
			}
			return nil
		},
	}
	merge.Flags().StringVar(&jsonOut, "json", "", "write the merged JSON report to `FILE`")
	merge.Flags().StringVar(&junitOut, "junit", "", "write the merged JUnit XML report to `FILE`")
	cmd.AddCommand(merge)
	return cmd
}
