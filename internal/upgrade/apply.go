package upgrade

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/plural"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/status"
	"github.com/k0rdent/kbook/internal/upgrade/window"
)

// Annotations in kbook's own domain that schedule upgrades; on the
// ClusterDeployment or its namespace (the deployment's win).
const (
	WindowAnnotation     = k0rdent.WindowAnnotation
	ExclusionsAnnotation = k0rdent.ExclusionsAnnotation
)

// Plan is an upgrade ApplyPlan applies: the target, when, and how.
type Plan struct {
	Target Target
	// Force applies despite hazards (never despite a pinned version:
	// that takes AllowK8sChange).
	Force bool
	// DryRun sends the patch as a server-side dry run.
	DryRun bool
	// Window overrides the annotations; Exclusions add to theirs.
	Window     string
	Exclusions []string
	// At waits until then before checking again and patching; AtNext
	// waits for the next window to open.
	At     time.Time
	AtNext bool
	// Wait follows the upgrade until the deployment is ready, for at most
	// Timeout.
	Wait    bool
	Timeout time.Duration
	// Now is the clock (time.Now when nil) and After its timer (time.After
	// when nil): --at waits on After(at - Now()), --wait polls on
	// After(Poll). Tests give both, so that no test sleeps for them.
	Now    func() time.Time
	After  func(time.Duration) <-chan time.Time
	Logger log.Logger
	// Poll is how often --wait reads the status (2s when zero).
	Poll time.Duration
}

// Refusal is an upgrade kbook would not apply: outside the window, with
// hazards, rejected by the server, or not ready in time (exit code 1).
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Result is what ApplyPlan did.
type Result struct {
	Report *Report `json:"report"`
	// Schedule is the window that applied, described.
	Schedule string `json:"schedule,omitempty"`
	// Patch is the JSON merge patch sent.
	Patch   string `json:"patch"`
	Applied bool   `json:"applied"`
	DryRun  bool   `json:"dryRun"`
	// Warnings are the API server's (kcm's webhook) warnings.
	Warnings []string     `json:"warnings,omitempty"`
	Status   *status.Tree `json:"status,omitempty"`
}

type warningCollector struct{ warnings []string }

func (w *warningCollector) HandleWarningHeader(code int, agent, text string) {
	if code == 299 {
		w.warnings = append(w.warnings, text)
	}
}

// ApplyPlan checks the upgrade, waits for the time and window, and patches
// spec.template; the error is a *Refusal when kbook refuses, ErrBadTarget
// (wrapped) for bad input.
func ApplyPlan(ctx context.Context, c *status.Client, o Plan) (*Result, error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	log := log.Or(o.Logger)
	o.Logger = log
	res := &Result{DryRun: o.DryRun}
	in, live, err := LiveInput(ctx, c, o.Target)
	if err != nil {
		return nil, err
	}
	sched, err := schedule(o, live)
	if err != nil {
		return nil, err
	}
	if sched != nil {
		res.Schedule = sched.Window.Describe()
	}
	at := o.At
	if o.AtNext {
		if sched == nil {
			return nil, fmt.Errorf("%w: --at next needs a maintenance window (--window, or the %s annotation)", ErrBadTarget, WindowAnnotation)
		}
		next, ok := sched.Next(now())
		if !ok {
			return nil, &Refusal{Reason: "no maintenance window opens within five years: " + sched.Window.Describe()}
		}
		if next.Start.After(now()) {
			at = next.Start
		}
	}
	if !at.IsZero() && at.After(now()) {
		if sched != nil {
			if _, open := sched.Open(at); !open {
				return nil, &Refusal{Reason: fmt.Sprintf("--at %s is outside the maintenance window (%s)%s", at.Format(time.RFC3339), sched.Window.Describe(), nextWindow(sched, at))}
			}
		}
		log.Infof("waiting until %s (in %s) to upgrade %s/%s", at.Format(time.RFC3339), window.Humanize(at.Sub(now())), o.Target.Namespace, o.Target.Name)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-o.After(at.Sub(now())):
		}
		// Things may have changed while waiting: read them again.
		if in, live, err = LiveInput(ctx, c, o.Target); err != nil {
			return nil, err
		}
	}
	rep, err := Predict(in)
	if err != nil {
		return nil, err
	}
	res.Report = rep
	t := now()
	if sched != nil {
		if span, open := sched.Open(t); open {
			log.Infof("inside the maintenance window (%s) until %s", sched.Window.Describe(), span.End.In(sched.Window.Location()).Format("2006-01-02 15:04 MST"))
		} else {
			why := "outside the maintenance window"
			if e, excluded := sched.Excluded(t); excluded {
				why = fmt.Sprintf("in an exclusion period (%s to %s)", e.Start.In(sched.Window.Location()).Format("2006-01-02 15:04 MST"), e.End.In(sched.Window.Location()).Format("2006-01-02 15:04 MST"))
			}
			return res, &Refusal{Reason: fmt.Sprintf("not upgrading %s/%s now (%s): %s (%s)%s", o.Target.Namespace, o.Target.Name, t.In(sched.Window.Location()).Format("2006-01-02 15:04 MST"), why, sched.Window.Describe(), nextWindow(sched, t))}
		}
	}
	if rep.Pin != nil && rep.Pin.Breaks && !rep.Pin.Allowed {
		return res, &Refusal{Reason: fmt.Sprintf("refusing: the deployment is pinned to Kubernetes %s and the upgrade moves it to %s; --allow-k8s-change lets it (--force does not)", rep.Pin.Allows, rep.To.K8s.Version)}
	}
	if n := rep.Hazards(); n > 0 && !o.Force {
		return res, &Refusal{Reason: fmt.Sprintf("refusing: %s found (see above); --force applies anyway", plural.Count(n, "hazard"))}
	}
	patch := map[string]any{
		"metadata": map[string]any{"annotations": map[string]any{status.UpgradeFromAnnotation: live.From}},
		"spec":     map[string]any{"template": o.Target.To},
	}
	data, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	res.Patch = string(data)
	wc := &warningCollector{}
	ri, err := c.Writer(k0rdent.Group, k0rdent.KindClusterDeployment, o.Target.Namespace, wc)
	if err != nil {
		return nil, err
	}
	opts := metav1.PatchOptions{FieldManager: "kbook"}
	if o.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	_, err = ri.Patch(ctx, o.Target.Name, types.MergePatchType, data, opts)
	res.Warnings = wc.warnings
	if err != nil {
		var se apierrors.APIStatus
		if errors.As(err, &se) {
			msg := "the API server rejected the patch: " + err.Error()
			if len(wc.warnings) > 0 {
				msg += " (warnings: " + strings.Join(wc.warnings, "; ") + ")"
			}
			return res, &Refusal{Reason: msg}
		}
		return res, err
	}
	res.Applied = !o.DryRun
	if !o.Wait || o.DryRun {
		return res, nil
	}
	return res, follow(ctx, c, o, res, now)
}

// follow polls the status until the deployment is ready and up to date.
func follow(ctx context.Context, c *status.Client, o Plan, res *Result, now func() time.Time) error {
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 30 * time.Minute
	}
	poll := o.Poll
	if poll == 0 {
		poll = 2 * time.Second
	}
	deadline := now().Add(timeout)
	last := ""
	for {
		tree, err := status.Collect(ctx, c, o.Target.Namespace, o.Target.Name)
		if err != nil {
			return err
		}
		res.Status = tree
		if sum := summary(tree); sum != last {
			o.Logger.Infof("%s", sum)
			last = sum
		}
		if tree.Ready {
			return nil
		}
		if u := tree.Upgrade; u != nil && u.Failed != "" {
			return &Refusal{Reason: "the upgrade stopped: " + u.Failed + "; fix spec.config for the new template (kbook upgrade check shows what it rejects)"}
		}
		if !now().Before(deadline) {
			return &Refusal{Reason: fmt.Sprintf("timed out after %s waiting for %s/%s to be ready and up to date", timeout, o.Target.Namespace, o.Target.Name)}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-o.After(poll):
		}
	}
}

// summary is one line of progress for --wait.
func summary(t *status.Tree) string {
	var parts []string
	if u := t.Upgrade; u != nil {
		done := 0
		for _, s := range u.Steps {
			if s.Done {
				done++
			}
		}
		parts = append(parts, fmt.Sprintf("upgrade to %s: %d/%d steps done", u.To, done, len(u.Steps)))
		for _, s := range u.Steps {
			if !s.Done {
				parts = append(parts, "waiting for: "+s.What+" ("+s.Note+")")
				break
			}
		}
	}
	parts = append(parts, fmt.Sprintf("ClusterDeployment Ready=%s", t.Root.Ready))
	if len(t.Progress) > 0 {
		parts = append(parts, "now: "+strings.Join(t.Progress, ", "))
	}
	if len(t.Causes) > 0 {
		parts = append(parts, "likely cause: "+status.Compact(t.Causes[0]))
	}
	return strings.Join(parts, "; ")
}

func nextWindow(s *window.Schedule, t time.Time) string {
	next, ok := s.Next(t)
	if !ok {
		return "; no window opens within five years"
	}
	loc := s.Window.Location()
	return fmt.Sprintf("; the next window opens %s (in %s) and closes %s", next.Start.In(loc).Format("2006-01-02 15:04 MST"), window.Humanize(next.Start.Sub(t)), next.End.In(loc).Format("2006-01-02 15:04 MST"))
}

// schedule is the window that applies: --window, else the deployment's
// annotation, else its namespace's; exclusions from the flags and both
// annotations. nil when none is set.
func schedule(o Plan, live *Live) (*window.Schedule, error) {
	cdAnn := live.Deployment.GetAnnotations()
	spec, from := o.Window, "--window"
	switch {
	case spec != "":
	case cdAnn[WindowAnnotation] != "":
		spec, from = cdAnn[WindowAnnotation], fmt.Sprintf("ClusterDeployment %s/%s annotation %s", o.Target.Namespace, o.Target.Name, WindowAnnotation)
	case live.NamespaceAnnotations[WindowAnnotation] != "":
		spec, from = live.NamespaceAnnotations[WindowAnnotation], fmt.Sprintf("Namespace %s annotation %s", o.Target.Namespace, WindowAnnotation)
	}
	if spec == "" {
		if len(o.Exclusions) > 0 || cdAnn[ExclusionsAnnotation] != "" || live.NamespaceAnnotations[ExclusionsAnnotation] != "" {
			// Exclusions alone: every moment outside them is open.
			spec, from = "daily 00:00 24h", "exclusions only"
		} else {
			return nil, nil
		}
	}
	w, err := window.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadTarget, from, err)
	}
	s := &window.Schedule{Window: w}
	for _, src := range []struct{ list, from string }{
		{strings.Join(o.Exclusions, ","), "--exclude"},
		{cdAnn[ExclusionsAnnotation], fmt.Sprintf("ClusterDeployment %s/%s annotation %s", o.Target.Namespace, o.Target.Name, ExclusionsAnnotation)},
		{live.NamespaceAnnotations[ExclusionsAnnotation], fmt.Sprintf("Namespace %s annotation %s", o.Target.Namespace, ExclusionsAnnotation)},
	} {
		ex, err := window.ParseExclusions(src.list, w.Location())
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrBadTarget, src.from, err)
		}
		s.Exclusions = append(s.Exclusions, ex...)
	}
	return s, nil
}
