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
		Use:   "status CLUSTERDEPLOYMENT",
		Short: "Show a ClusterDeployment and everything it depends on, and why it fails",
		Long: `Show the status of a ClusterDeployment in one tree, as clusterctl describe
cluster does for a Cluster API cluster:

  ClusterDeployment conditions
  ├─ClusterTemplate (valid?) and Credential (ready?)
  ├─HelmRelease (the chart kcm installs, and its version)
  └─Cluster (CAPI)
    ├─ClusterInfrastructure, ControlPlane (version, replicas, Machines)
    └─Workers: MachineDeployments and MachinePools, with their Machines

with Ready, reason, age, version, replicas and message per object. Identical
ready machines are grouped; objects that are not ready show their failing
conditions and latest events; the likely cause is named (template invalid,
Credential not ready, provider not exposed, chart failed to render, ...). An
upgrade in progress shows where it goes and which steps are done.

--watch redraws when something changes, until Ctrl-C.

Exit status: 0 shown, 2 bad input or the ClusterDeployment does not exist,
130 interrupted (Ctrl-C, which is how --watch ends).`,
		Example: `  kbook status dev-1 -n team-a
  kbook status dev-1 --watch
  kbook status dev-1 -o json | jq .causes`,
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
