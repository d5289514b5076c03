package main

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/upgrade"
)

func newUpgradeCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "upgrade"}
	cmd.AddCommand(newUpgradeCheckCmd(), newUpgradeApplyCmd(), newUpgradeWindowCmd())
	return cmd
}

func newUpgradeCheckCmd() *cobra.Command {
	var (
		live           liveFlags
		from, to       string
		config         string
		allowK8sChange bool
	)
	cmd := &cobra.Command{
		Use:  "check [CLUSTERDEPLOYMENT] --to TEMPLATE",
		Args: cobra.MaximumNArgs(1),
	}
	checkCmd(cmd, upgrade.Registry, func(cmd *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		r := live.request(args, to, allowK8sChange)
		r.From, r.Config = from, config
		if r.Deployment != "" {
			procs, closeProcs := openProcs(stderrLog)
			defer closeProcs()
			r.Procs = procs
		}
		rep, err := r.Check(cmd.Context())
		if err != nil {
			return nil, nil, err
		}
		return one(rep.FindingsReport(), nil)
	})
	live.add(cmd)
	live.addCharts(cmd)
	fl := cmd.Flags()
	fl.StringVar(&from, "from", "", "offline: the current `chart` (folder or .tgz)")
	fl.StringVar(&to, "to", "", "the target: a chart `folder or .tgz` offline, a ClusterTemplate name live")
	fl.StringVar(&config, "config", "", "offline: a ClusterDeployment or values `file`, with the ServiceTemplates and Management it uses as more documents")
	fl.BoolVar(&allowK8sChange, "allow-k8s-change", false, "let a deployment pinned to its Kubernetes version change it")
	return cmd
}

func newUpgradeApplyCmd() *cobra.Command {
	var (
		live           liveFlags
		o              upgrade.ApplyOptions
		to, at, output string
		allowK8sChange bool
	)
	cmd := &cobra.Command{
		Use:  "apply CLUSTERDEPLOYMENT --to TEMPLATE",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r := live.request(args, to, allowK8sChange)
			procs, closeProcs := openProcs(stderrLog)
			defer closeProcs()
			r.Procs, o.Log = procs, stderrLog
			res, err := r.Apply(cmd.Context(), o, at)
			if res != nil {
				if werr := upgrade.WriteApply(cmd.OutOrStdout(), output, res, err); werr != nil {
					return werr
				}
			}
			return exit(cmd.Context(), err)
		},
	}
	live.add(cmd)
	live.addCharts(cmd)
	fl := cmd.Flags()
	fl.StringVar(&to, "to", "", "the ClusterTemplate to upgrade to")
	fl.BoolVar(&o.Force, "force", false, "apply despite hazards (not despite a pinned version)")
	fl.BoolVar(&o.DryRun, "dry-run", false, "send the patch as a server-side dry run: kcm's webhook answers, nothing changes")
	fl.StringVar(&o.Window, "window", "", "maintenance `window`: RECURRENCE START DURATION [ZONE] (overrides the annotations)")
	fl.StringArrayVar(&o.Exclusions, "exclude", nil, "exclusion `period` START/END in which no window is open (repeatable)")
	fl.StringVar(&at, "at", "", "wait until this `time` (or \"next\": the next window) before checking again and applying")
	fl.BoolVar(&o.Wait, "wait", false, "follow the upgrade until the deployment is ready and up to date")
	fl.DurationVar(&o.Timeout, "timeout", 30*time.Minute, "how long --wait waits")
	fl.BoolVar(&allowK8sChange, "allow-k8s-change", false, "let a deployment pinned to its Kubernetes version change it")
	outputFlag(fl, &output, "text", "json")
	return cmd
}
