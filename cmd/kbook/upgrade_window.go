package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/upgrade/window"
)

func newUpgradeWindowCmd() *cobra.Command {
	var (
		exclusions []string
		at, output string
		count      int
	)
	cmd := &cobra.Command{
		Use:   "window SPEC",
		Short: "Show when a maintenance window opens",
		Long: `Parse a maintenance window and say whether it is open at --at (default now) and
when the next ones open: the same windows kbook upgrade apply obeys.

SPEC is RECURRENCE START DURATION [ZONE]:
  RECURRENCE  daily, days (sat,sun or mon-fri), or an RRULE subset like GKE's:
              FREQ=DAILY|WEEKLY|MONTHLY with BYDAY (1SU, -1FR for MONTHLY),
              BYMONTHDAY (-1 is the last day), INTERVAL and UNTIL
  START       HH:MM, or YYYY-MM-DDTHH:MM: no window opens before that date
              (and INTERVAL counts from it)
  DURATION    elapsed time: 4h, 90m, 1d12h
  ZONE        an IANA time zone (default UTC)

Local times are resolved in the zone each day: a start the clocks skip
(daylight saving begins) opens when the gap ends; a start that happens twice
(it ends) opens the first time. Windows may cross midnight.

Exit status: 0 open at --at, 1 closed, 2 bad input.`,
		Example: `  kbook upgrade window "sat,sun 02:00 4h Europe/Berlin"
  kbook upgrade window "mon-fri 22:00 3h America/New_York" --at 2025-11-02T05:00:00Z --count 3
  kbook upgrade window "FREQ=MONTHLY;BYDAY=1SU 04:00 6h Europe/London" --exclude 2025-12-20/2026-01-05`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := window.Evaluate(args[0], exclusions, at, count, time.Now())
			if err != nil {
				return usageError(err)
			}
			if err := window.Write(cmd.OutOrStdout(), output, rep); err != nil {
				return err
			}
			if !rep.Open {
				return &exitError{findings.ExitErrors, nil}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&exclusions, "exclude", nil, "exclusion `period` START/END (repeatable)")
	fl.StringVar(&at, "at", "", "the `time` to evaluate (RFC 3339, or YYYY-MM-DDTHH:MM in the window's zone; default now)")
	fl.IntVar(&count, "count", 1, "how many next windows to list")
	outputFlag(fl, &output, "text", "json")
	return cmd
}
