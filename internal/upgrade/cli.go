package upgrade

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/status"
	"github.com/k0rdent/kbook/internal/upgrade/window"
)

// Options are kbook upgrade check's and apply's, as their flags give
// them.
type Options struct {
	// Deployment is the ClusterDeployment of a live check or apply; ""
	// checks offline, from the From and To charts.
	Deployment string
	// From (offline) is the current chart; To the target chart offline,
	// the ClusterTemplate live.
	From, To string
	// Config (offline) is a ClusterDeployment or values file, with the
	// ServiceTemplates and Management it uses as more documents.
	Config string
	// Namespace is the deployment's (live: default the context's).
	Namespace      string
	AllowK8sChange bool
	// Charts are folders of the templates' charts (live); else they are
	// pulled from the templates' HelmRepository into a folder of the
	// registry OpenProcs opens (nil: untracked), which Logger tells of.
	Charts []string
	// Kubeconfig and Context select the management cluster (live).
	Kubeconfig, Context string
	OpenProcs           proc.Opener
	// Force, DryRun, Window, Exclusions, Wait and Timeout are apply's (see
	// Plan); At is --at: "" now, "next" the next window, else a time.
	Force, DryRun bool
	Window        string
	Exclusions    []string
	At            string
	Wait          bool
	Timeout       time.Duration
	// Logger tells of the charts pulled and of apply's progress.
	Logger log.Logger
}

// ErrInterrupted is a live check or apply stopped by its context.
var ErrInterrupted = errors.New("interrupted")

// Check is kbook upgrade check: it predicts the upgrade o asks for,
// offline or live, and returns its report as findings (its Detail the
// upgrade's Report, for findings.Write). Bad flags and inputs are a
// findings.InputError; an interrupted live read is ErrInterrupted.
func Check(ctx context.Context, o Options) (*findings.Report, error) {
	rep, err := predict(ctx, o)
	if err != nil {
		return nil, err
	}
	return rep.FindingsReport(), nil
}

// predict is Check's prediction, as an upgrade Report.
func predict(ctx context.Context, o Options) (*Report, error) {
	if o.To == "" {
		return nil, findings.Input(errors.New("--to is required: the chart (offline) or ClusterTemplate (live) to upgrade to"))
	}
	if o.Deployment == "" {
		return offline(o)
	}
	if o.From != "" || o.Config != "" {
		return nil, findings.Input(errors.New("--from and --config are for offline checks: a live check reads the ClusterDeployment " + o.Deployment))
	}
	c, t, cleanup, err := connect(o)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	in, _, err := LiveInput(ctx, c, t)
	if err != nil {
		return nil, liveError(err)
	}
	rep, err := Predict(in)
	if err != nil {
		return nil, findings.Input(err)
	}
	return rep, nil
}

func offline(o Options) (*Report, error) {
	if o.From == "" {
		return nil, findings.Input(errors.New("give a CLUSTERDEPLOYMENT to check live, or --from CHART to check offline"))
	}
	if len(o.Charts) > 0 {
		return nil, findings.Input(errors.New("--charts is for live checks; offline, --from and --to are the charts"))
	}
	in := Input{From: Side{Chart: o.From}, To: Side{Chart: o.To}, AllowK8sChange: o.AllowK8sChange}
	if o.Config != "" {
		cfg, err := LoadConfig(o.Config)
		if err != nil {
			return nil, findings.Input(err)
		}
		in.Deployment, in.Services, in.Exposure = cfg.Deployment, cfg.Services, cfg.Exposure
	}
	if o.Namespace != "" {
		in.Deployment.Namespace = o.Namespace
	}
	rep, err := Predict(in)
	if err != nil {
		return nil, findings.Input(err)
	}
	return rep, nil
}

// connect connects to the management cluster and names the upgrade;
// cleanup removes the charts pulled for it.
func connect(o Options) (*status.Client, Target, func(), error) {
	for _, d := range o.Charts {
		if _, err := os.Stat(d); err != nil {
			return nil, Target{}, nil, findings.Input(fmt.Errorf("--charts %s: %w", d, err))
		}
	}
	c, err := status.Connect(o.Kubeconfig, o.Context, o.Namespace)
	if err != nil {
		return nil, Target{}, nil, findings.Input(err)
	}
	// Charts pulled from HelmRepositories go into a directory the process
	// registry removes, even when kbook is killed (by the next run).
	procs, closeProcs := o.OpenProcs.Open(o.Logger)
	tmp, err := procs.MkdirTemp("charts-")
	if err != nil {
		closeProcs()
		return nil, Target{}, nil, err
	}
	t := Target{Namespace: c.Namespace, Name: o.Deployment, To: o.To, AllowK8sChange: o.AllowK8sChange,
		Charts: &ChartFinder{Dirs: o.Charts, TempDir: tmp}}
	return c, t, func() { os.RemoveAll(tmp); closeProcs() }, nil
}

// Apply is kbook upgrade apply: it checks when (o.Window, o.Exclusions,
// o.At: bad input before anything is read), connects and applies the
// upgrade o names (ApplyPlan), telling of its progress to o.Logger. The
// result is returned with the error whenever there is one: a *Refusal
// (refused, rejected, timed out), a findings.InputError, or
// ErrInterrupted with what was left behind.
func Apply(ctx context.Context, o Options) (*Result, error) {
	if o.To == "" {
		return nil, findings.Input(errors.New("--to is required: the ClusterTemplate to upgrade to"))
	}
	p := Plan{Force: o.Force, DryRun: o.DryRun, Window: o.Window, Exclusions: o.Exclusions, Wait: o.Wait, Timeout: o.Timeout, Logger: o.Logger}
	if err := parseWhen(&p, o.At, time.Now()); err != nil {
		return nil, findings.Input(err)
	}
	c, t, cleanup, err := connect(o)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	p.Target = t
	res, err := ApplyPlan(ctx, c, p)
	switch {
	case err != nil && ctx.Err() != nil && res != nil && res.Applied:
		return res, fmt.Errorf("%w while waiting: %s/%s is patched to %s and the upgrade goes on; follow it with kbook status %s -n %s --watch", ErrInterrupted, t.Namespace, t.Name, o.To, t.Name, t.Namespace)
	case err != nil && ctx.Err() != nil:
		return res, fmt.Errorf("%w before the patch: nothing changed", ErrInterrupted)
	case err != nil:
		return res, liveError(err)
	}
	return res, nil
}

// parseWhen checks the window and exclusions of p and sets when to apply
// from at: "" now, "next" the next window, else a time after now.
func parseWhen(p *Plan, at string, now time.Time) error {
	loc := time.UTC
	if p.Window != "" {
		w, err := window.Parse(p.Window)
		if err != nil {
			return fmt.Errorf("--window: %w", err)
		}
		loc = w.Location()
	}
	for _, e := range p.Exclusions {
		if _, err := window.ParseExclusion(e, loc); err != nil {
			return fmt.Errorf("--exclude: %w", err)
		}
	}
	switch at {
	case "":
	case "next":
		p.AtNext = true
	default:
		t, err := window.ParseTime(at, loc)
		if err != nil {
			return fmt.Errorf("--at: %w", err)
		}
		if t.Before(now) {
			return fmt.Errorf("--at %s is in the past", at)
		}
		p.At = t
	}
	return nil
}

// liveError classifies the errors of reading or applying a live upgrade:
// a refusal stays one; a bad target or a missing object is bad input, as
// is any other read error (a cluster that does not answer); an
// interruption is ErrInterrupted.
func liveError(err error) error {
	var r *Refusal
	switch {
	case errors.Is(err, context.Canceled):
		return ErrInterrupted
	case errors.As(err, &r):
		return err
	case errors.Is(err, ErrBadTarget), errors.Is(err, status.ErrNotFound):
		return findings.Input(errors.New(strings.TrimPrefix(err.Error(), ErrBadTarget.Error()+": ")))
	}
	return findings.Input(err)
}

// WriteApply writes what Apply did (res) and, in JSON and YAML, why it
// refused (err), as text, json or yaml (package output); without a result
// (Apply stopped before it had one), nothing.
func WriteApply(w io.Writer, format string, res *Result, err error) error {
	if res == nil {
		return nil
	}
	doc := struct {
		*Result
		Refused string `json:"refused,omitempty"`
	}{Result: res}
	var r *Refusal
	if errors.As(err, &r) {
		doc.Refused = r.Reason
	}
	return output.Write(w, format, doc, func(w io.Writer) error {
		if res.Report != nil {
			if err := WriteText(w, res.Report); err != nil {
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
	})
}
