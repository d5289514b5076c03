package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/status"
)

func newStatusCmd() *cobra.Command {
	var (
		live     liveFlags
		watch    bool
		interval time.Duration
		output   string
	)
	cmd := &cobra.Command{
		Use:  "status CLUSTERDEPLOYMENT",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := status.Show(cmd.Context(), status.ShowOptions{Kubeconfig: live.kubeconfig, Context: live.context, Namespace: live.namespace,
				Name: args[0], Watch: watch, Interval: interval, Format: output, Out: cmd.OutOrStdout()})
			if cmd.Context().Err() != nil {
				// Ctrl-C ends --watch (and a read under way) as it ends
				// every command: 130.
				return &exitError{findings.ExitInterrupted, nil}
			}
			return exit(cmd.Context(), err)
		},
	}
	live.add(cmd)
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "redraw when the status changes, until interrupted")
	cmd.Flags().DurationVar(&interval, "interval", 2*time.Second, "how often --watch reads the status")
	outputFlag(cmd.Flags(), &output, "text", "json")
	return cmd
}
