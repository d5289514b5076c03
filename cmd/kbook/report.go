package main

import (
	"fmt"

	"github.com/k0rdent/kbook/internal/console"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/spf13/cobra"
)

func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use: "report",
	}
	var jsonOut, junitOut string
	merge := &cobra.Command{
		Use:  "merge REPORT.json...",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if jsonOut == "" && junitOut == "" {
				return usageError(fmt.Errorf("nothing to write: give --json FILE and/or --junit FILE"))
			}
			merged, err := report.MergeFiles(args...)
			if err != nil {
				return usageError(err)
			}
			if jsonOut != "" {
				if err := merged.WriteJSON(jsonOut); err != nil {
					return &exitError{findings.ExitErrors, err}
				}
			}
			if junitOut != "" {
				if err := merged.WriteJUnit(junitOut); err != nil {
					return &exitError{findings.ExitErrors, err}
				}
			}
			fmt.Fprint(cmd.OutOrStdout(), console.Summary(merged))
			if merged.Summary().Failed > 0 {
				return &exitError{findings.ExitErrors, nil}
			}
			return nil
		},
	}
	merge.Flags().StringVar(&jsonOut, "json", "", "write the merged JSON report to `FILE`")
	merge.Flags().StringVar(&junitOut, "junit", "", "write the merged JUnit XML report to `FILE`")
	cmd.AddCommand(merge)
	return cmd
}
