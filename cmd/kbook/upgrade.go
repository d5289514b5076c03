package main

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/status"
	"github.com/k0rdent/kbook/internal/upgrade"
)

func newUpgradeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "upgrade",
		Short: "Check and apply upgrades of clusters built from templates",
		Long: `In k0rdent a cluster is upgraded by pointing its ClusterDeployment at another
ClusterTemplate. kbook upgrade check says beforehand what kcm will answer and
what the change does to the cluster; kbook upgrade apply makes the change
when it is safe and the maintenance window is open.`,
	}
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
		Use:   "check [CLUSTERDEPLOYMENT] --to TEMPLATE",
		Short: "Say what an upgrade does before anything changes",
		Long: `Check an upgrade before it happens, offline from two charts or live for a
ClusterDeployment of a management cluster.

Offline: --from and --to are chart folders or archives; --config is a
ClusterDeployment (its spec.config is the values, its annotations may pin the
Kubernetes version) or a values file, and may hold more YAML documents: the
ServiceTemplates the deployment uses and a Management whose providers it
needs. Live: the ClusterDeployment, both ClusterTemplates, their charts
(--charts, else pulled from the templates' HelmRepository), the
ServiceTemplates and the Management are read from the cluster.

It reports the effective Kubernetes version of both sides (spec.k8sVersion
or the k8s-version annotation, else k0s.version without +k0s.N,
kubernetes.version, version; the config overrides the chart's default) and:
what kcm's webhook will answer (status.availableUpgrades, template validity,
providers, service constraints); downgrades, skipped minor versions and
kubelet skew; a pinned version (annotation ` + upgrade.PinAnnotation + `);
the config against the target schema (rejected, silently ignored, newly
required values; changed defaults); the objects both charts render with the
same config: deletions of the cluster or its machines, chart renames,
immutable machine templates changed in place, workers left behind the
control plane; predicted rollouts (which machines are replaced, and why);
provider contracts; ServiceTemplate constraints against the new version.

Exit status: 0 no hazard, 1 hazard found, 2 bad input or error.`,
		Example: `  # Offline, two chart versions and a deployment's config
  kbook upgrade check --from ./aws-standalone-cp-1.0.43 --to ./aws-standalone-cp-1.0.44 --config dev-1.yaml

  # Live, as kcm will see it
  kbook upgrade check dev-1 -n team-a --to aws-standalone-cp-1-0-44 --charts ./charts

  kbook upgrade check dev-1 --to aws-standalone-cp-1-0-44 -o json | jq .findings`,
		Args: cobra.MaximumNArgs(1),
	}
	checkCmd(cmd, upgrade.Registry, func(cmd *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		r := live.request(args, to, allowK8sChange)
		r.From, r.Config = from, config
		if r.Deployment != "" {
			procs, closeProcs := openProcs(stderrLogger{})
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
		Use:   "apply CLUSTERDEPLOYMENT --to TEMPLATE",
		Short: "Upgrade a ClusterDeployment when it is safe and the maintenance window is open",
		Long: `Run kbook upgrade check, then patch the ClusterDeployment's spec.template.

It refuses when the check finds hazards (unless --force), when a pinned
Kubernetes version would change (unless --allow-k8s-change; --force does not
override a pin), and outside the maintenance window, saying when the next one
opens. It prints the plan and the exact patch; --dry-run sends it as a
server-side dry run, so kcm's webhook answers without anything changing.

The window is --window, else the annotation ` + upgrade.WindowAnnotation + ` of the
ClusterDeployment, else of its namespace: RECURRENCE START DURATION [ZONE],
such as "sat,sun 02:00 4h Europe/Berlin" or "FREQ=MONTHLY;BYDAY=1SU 03:00 3h
UTC" (see kbook upgrade window). Exclusion periods come from --exclude and the
annotations ` + upgrade.ExclusionsAnnotation + ` of both, such as
2025-12-20/2026-01-05.

--at TIME waits until then (RFC 3339, or YYYY-MM-DDTHH:MM in the window's
zone), checks again and applies; --at next waits for the next window.
--wait follows the upgrade in the status view until the deployment is ready
and up to date, or --timeout.

The patch also records the template it upgrades from in the annotation
` + status.UpgradeFromAnnotation + `, which kbook status shows.

Exit status: 0 applied (or accepted by the dry run), 1 refused, rejected or
timed out, 2 bad input or error.`,
		Example: `  kbook upgrade apply dev-1 -n team-a --to aws-standalone-cp-1-0-44 --dry-run
  kbook upgrade apply dev-1 --to aws-standalone-cp-1-0-44 --window "sat,sun 02:00 4h Europe/Berlin" --wait
  kbook upgrade apply dev-1 --to aws-standalone-cp-1-0-44 --at next --exclude 2025-12-20/2026-01-05`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r := live.request(args, to, allowK8sChange)
			procs, closeProcs := openProcs(stderrLogger{})
			defer closeProcs()
			r.Procs, o.Log = procs, stderrLogger{}
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
