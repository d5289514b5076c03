package main

import (
	"io"
	"time"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/upgrade"
	"github.com/k0rdent/kbook/internal/upgrade/window"
	"github.com/spf13/cobra"
)

func newUpgradeCheckCmd() *cobra.Command {
	var r upgrade.Request
	cmd := &cobra.Command{
		Use:  "check [CLUSTERDEPLOYMENT] --to TEMPLATE",
		Args: cobra.MaximumNArgs(1),
	}
	checkCmd(cmd, upgrade.Registry, func(cmd *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		r.Deployment, r.OpenProcs, r.Log = first(args), openProcs, stderrLog
		return one(r.Findings(cmd.Context()))
	})
	fl := cmd.Flags()
	liveFlags(fl, &r.Kubeconfig, &r.Context, &r.Namespace)
	chartsFlag(fl, &r.Charts)
	fl.StringVar(&r.From, "from", "", "offline: the current `chart` (folder or .tgz)")
	fl.StringVar(&r.To, "to", "", "the target: a chart `folder or .tgz` offline, a ClusterTemplate name live")
	fl.StringVar(&r.Config, "config", "", "offline: a ClusterDeployment or values `file`, with the ServiceTemplates and Management it uses as more documents")
	fl.BoolVar(&r.AllowK8sChange, "allow-k8s-change", false, "let a deployment pinned to its Kubernetes version change it")
	return cmd
}

func newUpgradeApplyCmd() *cobra.Command {
	var (
		r          upgrade.Request
		o          upgrade.ApplyOptions
		at, output string
	)
	cmd := &cobra.Command{
		Use:  "apply CLUSTERDEPLOYMENT --to TEMPLATE",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r.Deployment, r.OpenProcs, r.Log = args[0], openProcs, stderrLog
			res, err := r.Apply(cmd.Context(), o, at)
			if werr := upgrade.WriteApply(cmd.OutOrStdout(), output, res, err); werr != nil {
				return werr
			}
			return exit(cmd.Context(), err)
		},
	}
	fl := cmd.Flags()
	liveFlags(fl, &r.Kubeconfig, &r.Context, &r.Namespace)
	chartsFlag(fl, &r.Charts)
	fl.StringVar(&r.To, "to", "", "the ClusterTemplate to upgrade to")
	fl.BoolVar(&o.Force, "force", false, "apply despite hazards (not despite a pinned version)")
	fl.BoolVar(&o.DryRun, "dry-run", false, "send the patch as a server-side dry run: kcm's webhook answers, nothing changes")
	fl.StringVar(&o.Window, "window", "", "maintenance `window`: RECURRENCE START DURATION [ZONE] (overrides the annotations)")
	fl.StringArrayVar(&o.Exclusions, "exclude", nil, "exclusion `period` START/END in which no window is open (repeatable)")
	fl.StringVar(&at, "at", "", "wait until this `time` (or \"next\": the next window) before checking again and applying")
	fl.BoolVar(&o.Wait, "wait", false, "follow the upgrade until the deployment is ready and up to date")
	fl.DurationVar(&o.Timeout, "timeout", 30*time.Minute, "how long --wait waits")
	fl.BoolVar(&r.AllowK8sChange, "allow-k8s-change", false, "let a deployment pinned to its Kubernetes version change it")
	outputFlag(fl, &output, "text", "json", "yaml")
	return cmd
}

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
	outputFlag(fl, &output, "text", "json", "yaml")
	return cmd
}
