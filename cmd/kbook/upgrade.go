package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/status"
	"github.com/k0rdent/kbook/internal/upgrade"
	"github.com/k0rdent/kbook/internal/upgrade/window"
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

func (l *liveFlags) connect() (*status.Client, error) {
	c, err := status.Connect(l.kubeconfig, l.context, l.namespace)
	if err != nil {
		return nil, usageError(err)
	}
	return c, nil
}

// target connects and names the upgrade of deployment name to template
// to; cleanup removes the charts pulled for it.
func (l *liveFlags) target(name, to string, allowK8sChange bool) (*status.Client, upgrade.Target, func(), error) {
	for _, d := range l.charts {
		if _, err := os.Stat(d); err != nil {
			return nil, upgrade.Target{}, nil, usageError(fmt.Errorf("--charts %s: %w", d, err))
		}
	}
	c, err := l.connect()
	if err != nil {
		return nil, upgrade.Target{}, nil, err
	}
	// Charts pulled from HelmRepositories go into a directory the process
	// registry removes, even when kbook is killed (by the next run).
	reg, closeProcs := openProcs(stderrLogger{})
	tmp, err := reg.MkdirTemp("charts-")
	if err != nil {
		closeProcs()
		return nil, upgrade.Target{}, nil, err
	}
	t := upgrade.Target{Namespace: c.Namespace, Name: name, To: to, AllowK8sChange: allowK8sChange,
		Charts: &upgrade.ChartFinder{Dirs: l.charts, TempDir: tmp}}
	return c, t, func() { os.RemoveAll(tmp); closeProcs() }, nil
}

// liveError maps the errors of reading a live upgrade to exit codes.
func liveError(err error) error {
	var r *upgrade.Refusal
	switch {
	case errors.Is(err, context.Canceled):
		return &exitError{findings.ExitInterrupted, errors.New("interrupted")}
	case errors.As(err, &r):
		return &exitError{findings.ExitErrors, err}
	case errors.Is(err, upgrade.ErrBadTarget), errors.Is(err, status.ErrNotFound):
		return usageError(errors.New(strings.TrimPrefix(err.Error(), upgrade.ErrBadTarget.Error()+": ")))
	}
	return &exitError{findings.ExitBadInput, err}
}

func newUpgradeCheckCmd() *cobra.Command {
	var (
		live           liveFlags
		from, to       string
		config         string
		output         string
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return usageError(errors.New("--to is required: the chart (offline) or ClusterTemplate (live) to upgrade to"))
			}
			var rep *upgrade.Report
			if len(args) == 0 {
				if from == "" {
					return usageError(errors.New("give a CLUSTERDEPLOYMENT to check live, or --from CHART to check offline"))
				}
				if len(live.charts) > 0 {
					return usageError(errors.New("--charts is for live checks; offline, --from and --to are the charts"))
				}
				in := upgrade.Input{From: upgrade.Side{Chart: from}, To: upgrade.Side{Chart: to}, AllowK8sChange: allowK8sChange}
				if config != "" {
					cfg, err := upgrade.LoadConfig(config)
					if err != nil {
						return usageError(err)
					}
					in.Deployment, in.Services, in.Exposure = cfg.Deployment, cfg.Services, cfg.Exposure
				}
				if live.namespace != "" {
					in.Deployment.Namespace = live.namespace
				}
				var err error
				if rep, err = upgrade.Check(in); err != nil {
					return usageError(err)
				}
			} else {
				if from != "" || config != "" {
					return usageError(errors.New("--from and --config are for offline checks: a live check reads the ClusterDeployment " + args[0]))
				}
				c, target, cleanup, err := live.target(args[0], to, allowK8sChange)
				if err != nil {
					return err
				}
				defer cleanup()
				in, _, err := upgrade.LiveInput(cmd.Context(), c, target)
				if err != nil {
					return liveError(err)
				}
				if rep, err = upgrade.Check(in); err != nil {
					return usageError(err)
				}
			}
			if err := writeReport(cmd.OutOrStdout(), output, rep); err != nil {
				return err
			}
			if code := upgrade.Registry.ExitCode(rep.FindingsReport()); code != findings.ExitOK {
				return &exitError{code, nil}
			}
			return nil
		},
	}
	live.add(cmd)
	live.addCharts(cmd)
	fl := cmd.Flags()
	fl.StringVar(&from, "from", "", "offline: the current `chart` (folder or .tgz)")
	fl.StringVar(&to, "to", "", "the target: a chart `folder or .tgz` offline, a ClusterTemplate name live")
	fl.StringVar(&config, "config", "", "offline: a ClusterDeployment or values `file`, with the ServiceTemplates and Management it uses as more documents")
	fl.BoolVar(&allowK8sChange, "allow-k8s-change", false, "let a deployment pinned to its Kubernetes version change it")
	outputFlag(fl, &output, findings.Formats...)
	return cmd
}

func writeReport(w io.Writer, output string, rep *upgrade.Report) error {
	return findings.Write(w, output, upgrade.Registry, rep.FindingsReport())
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
			if to == "" {
				return usageError(errors.New("--to is required: the ClusterTemplate to upgrade to"))
			}
			if o.Window != "" {
				if _, err := window.Parse(o.Window); err != nil {
					return usageError(fmt.Errorf("--window: %w", err))
				}
			}
			loc := time.UTC
			if w, err := window.Parse(o.Window); err == nil {
				loc = w.Location()
			}
			for _, e := range o.Exclusions {
				if _, err := window.ParseExclusion(e, loc); err != nil {
					return usageError(fmt.Errorf("--exclude: %w", err))
				}
			}
			switch at {
			case "":
			case "next":
				o.AtNext = true
			default:
				t, err := window.ParseTime(at, loc)
				if err != nil {
					return usageError(fmt.Errorf("--at: %w", err))
				}
				if t.Before(time.Now()) {
					return usageError(fmt.Errorf("--at %s is in the past", at))
				}
				o.At = t
			}
			c, target, cleanup, err := live.target(args[0], to, allowK8sChange)
			if err != nil {
				return err
			}
			defer cleanup()
			o.Target = target
			o.Log = stderrLogger{}
			res, err := upgrade.Apply(cmd.Context(), c, o)
			w := cmd.OutOrStdout()
			if res != nil {
				if werr := writeApply(w, output, res, err); werr != nil {
					return werr
				}
			}
			if err != nil && cmd.Context().Err() != nil {
				if res != nil && res.Applied {
					return &exitError{findings.ExitInterrupted, fmt.Errorf("interrupted while waiting: %s/%s is patched to %s and the upgrade goes on; follow it with kbook status %s -n %s --watch", target.Namespace, target.Name, to, target.Name, target.Namespace)}
				}
				return &exitError{findings.ExitInterrupted, errors.New("interrupted before the patch: nothing changed")}
			}
			if err != nil {
				return liveError(err)
			}
			return nil
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

func writeApply(w io.Writer, output string, res *upgrade.Result, err error) error {
	if output == "json" {
		doc := struct {
			*upgrade.Result
			Refused string `json:"refused,omitempty"`
		}{Result: res}
		var r *upgrade.Refusal
		if errors.As(err, &r) {
			doc.Refused = r.Reason
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	if res.Report != nil {
		if err := upgrade.WriteText(w, res.Report); err != nil {
			return err
		}
	}
	if res.Schedule != "" {
		fmt.Fprintf(w, "Maintenance window: %s\n", res.Schedule)
	}
	if res.Patch != "" {
		fmt.Fprintf(w, "Plan: set spec.template of the ClusterDeployment to %s\n", res.Report.To.Template)
		fmt.Fprintf(w, "Patch (JSON merge patch): %s\n", res.Patch)
	}
	for _, wn := range res.Warnings {
		fmt.Fprintf(w, "Warning from the API server: %s\n", wn)
	}
	switch {
	case res.DryRun && err == nil:
		fmt.Fprintln(w, "Server-side dry run: accepted, nothing changed")
	case res.Applied:
		fmt.Fprintln(w, "Applied")
	}
	if res.Status != nil {
		status.WriteText(w, res.Status, time.Now())
	}
	return nil
}

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
			w, err := window.Parse(args[0])
			if err != nil {
				return usageError(err)
			}
			s := window.Schedule{Window: w}
			for _, e := range exclusions {
				sp, err := window.ParseExclusion(e, w.Location())
				if err != nil {
					return usageError(fmt.Errorf("--exclude: %w", err))
				}
				s.Exclusions = append(s.Exclusions, sp)
			}
			t := time.Now()
			if at != "" {
				if t, err = window.ParseTime(at, w.Location()); err != nil {
					return usageError(fmt.Errorf("--at: %w", err))
				}
			}
			if count < 1 {
				return usageError(fmt.Errorf("--count %d: want at least 1", count))
			}
			rep := s.Report(t, count)
			out := cmd.OutOrStdout()
			if output == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				window.WriteText(out, rep)
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
