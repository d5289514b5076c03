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
	var o upgrade.Options
	cmd := &cobra.Command{
		Use:  "check [CLUSTERDEPLOYMENT] --to TEMPLATE",
		Args: cobra.MaximumNArgs(1),
	}
	checkCmd(cmd, upgrade.Registry, func(cmd *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		o.Deployment, o.OpenProcs, o.Logger = first(args), openProcs, stderrLog
		return one(upgrade.Check(cmd.Context(), o))
	})
	fl := cmd.Flags()
	liveFlags(fl, &o.Kubeconfig, &o.Context, &o.Namespace)
	chartsFlag(fl, &o.Charts)
	fl.StringVar(&o.From, "from", "", "offline: the current `chart` (folder or .tgz)")
	fl.StringVar(&o.To, "to", "", "the target: a chart `folder or .tgz` offline, a ClusterTemplate name live")
	fl.StringVar(&o.Config, "config", "", "offline: a ClusterDeployment or values `file`, with the ServiceTemplates and Management it uses as more documents")
	fl.BoolVar(&o.AllowK8sChange, "allow-k8s-change", false, "let a deployment pinned to its Kubernetes version change it")
	return cmd
}

func newUpgradeApplyCmd() *cobra.Command {
	var (
		o      upgrade.Options
		output string
	)
	cmd := &cobra.Command{
		Use:  "apply CLUSTERDEPLOYMENT --to TEMPLATE",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Deployment, o.OpenProcs, o.Logger = args[0], openProcs, stderrLog
			res, err := upgrade.Apply(cmd.Context(), o)
			if werr := upgrade.WriteApply(cmd.OutOrStdout(), output, res, err); werr != nil {
				return werr
			}
			return exit(cmd.Context(), err)
		},
	}
	fl := cmd.Flags()
	liveFlags(fl, &o.Kubeconfig, &o.Context, &o.Namespace)
	chartsFlag(fl, &o.Charts)
	fl.StringVar(&o.To, "to", "", "the ClusterTemplate to upgrade to")
	fl.BoolVar(&o.Force, "force", false, "apply despite hazards (not despite a pinned version)")
	fl.BoolVar(&o.DryRun, "dry-run", false, "send the patch as a server-side dry run: kcm's webhook answers, nothing changes")
	fl.StringVar(&o.Window, "window", "", "maintenance `window`: RECURRENCE START DURATION [ZONE] (overrides the annotations)")
	fl.StringArrayVar(&o.Exclusions, "exclude", nil, "exclusion `period` START/END in which no window is open (repeatable)")
	fl.StringVar(&o.At, "at", "", "wait until this `time` (or \"next\": the next window) before checking again and applying")
	fl.BoolVar(&o.Wait, "wait", false, "follow the upgrade until the deployment is ready and up to date")
	fl.DurationVar(&o.Timeout, "timeout", 30*time.Minute, "how long --wait waits")
	fl.BoolVar(&o.AllowK8sChange, "allow-k8s-change", false, "let a deployment pinned to its Kubernetes version change it")
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
