package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/k0rdent/kbook/internal/status"
)

func newStatusCmd() *cobra.Command {
	var o status.Options
	cmd := &cobra.Command{
		Use:  "status CLUSTERDEPLOYMENT",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Ctrl-C ends --watch (and a read under way) as it ends
			// every command: 130, Show returning the context's error.
			o.Name, o.IOStreams = args[0], streams(cmd)
			return exit(cmd.Context(), status.Show(cmd.Context(), o))
		},
	}
	fl := cmd.Flags()
	liveFlags(fl, &o.Kubeconfig, &o.Context, &o.Namespace)
	fl.BoolVarP(&o.Watch, "watch", "w", false, "redraw when the status changes, until interrupted")
	fl.DurationVar(&o.Interval, "interval", 2*time.Second, "how often --watch reads the status")
	outputFlag(fl, &o.Format, "text", "json", "yaml")
	return cmd
}
