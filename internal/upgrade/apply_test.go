package upgrade_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/status"
	"github.com/k0rdent/kbook/internal/status/statustest"
	"github.com/k0rdent/kbook/internal/testctx"
	"github.com/k0rdent/kbook/internal/upgrade"
)

var crdDirs = apitest.SharedCRDs("k0rdent", "capi", "k0smotron")

// management is the cluster-scoped Management, written once.
var management sync.Once

var server = apitest.New(append(crdDirs, "../status/testdata/helmreleases-crd.yaml")...)

func TestMain(m *testing.M) {
	code := m.Run()
	server.Stop()
	os.Exit(code)
}

// setup writes a deployment on acme-k0s-1-0-0 that kcm offers
// acme-k0s-1-1-0, as kcm would have left it, in a namespace of its own.
func setup(t *testing.T, prefix string, nsAnnotations map[string]string) (*status.Client, upgrade.Target) {
	t.Helper()
	statustest.Skip(t, crdDirs, 3)
	cfg := server.Config(t)
	ns := statustest.Namespace(t, cfg, prefix, nsAnnotations)
	c, err := status.NewClient(cfg, ns, "test")
	if err != nil {
		t.Fatal(err)
	}
	management.Do(func() {
		statustest.Apply(t, c, "", "testdata/live/management.yaml", "testdata/live/management-status.yaml")
	})
	statustest.Apply(t, c, ns, "testdata/live/objects.yaml", "testdata/live/status.yaml")
	var dirs []string
	for _, d := range []string{"base", "minor", "skip"} {
		dirs = append(dirs, filepath.Join("testdata", "charts", d))
	}
	return c, upgrade.Target{Namespace: ns, Name: "dev-1", To: "acme-k0s-1-1-0", Charts: &upgrade.ChartFinder{Dirs: dirs}}
}

func template(t *testing.T, c *status.Client, ns string) string {
	t.Helper()
	ri, _ := c.Resource("k0rdent.mirantis.com", "ClusterDeployment", ns)
	u, err := ri.Get(context.Background(), "dev-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return u.Object["spec"].(map[string]any)["template"].(string)
}

func at(s string) func() time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return func() time.Time { return t }
}

func TestLiveCheck(t *testing.T) {
	c, target := setup(t, "upgrade-live-check", nil)
	in, _, err := upgrade.LiveInput(context.Background(), c, target)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := upgrade.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.KCM.Accepts || !rep.KCM.Checked || rep.Hazards() != 0 {
		t.Errorf("kcm %+v, %d hazards\n%v", rep.KCM, rep.Hazards(), rep.Findings)
	}
	if rep.To.K8s.String() != "v1.32.2 (chart default k0s.version)" || len(rep.Rollouts) != 1 {
		t.Errorf("to %s, rollouts %v", rep.To.K8s, rep.Rollouts)
	}
	// Not offered by the chains: kcm's webhook forbids it.
	target.To = "acme-k0s-2-0-0"
	in, _, err = upgrade.LiveInput(context.Background(), c, target)
	if err != nil {
		t.Fatal(err)
	}
	rep, _ = upgrade.Predict(in)
	if rep.KCM.Accepts || !strings.Contains(rep.KCM.Says[0], "Cluster can't be upgraded from acme-k0s-1-0-0 to acme-k0s-2-0-0. This upgrade sequence is not allowed") {
		t.Errorf("kcm %+v", rep.KCM)
	}
	target.To = "acme-k0s-3-0-0"
	if _, _, err := upgrade.LiveInput(context.Background(), c, target); !errors.Is(err, upgrade.ErrBadTarget) {
		t.Errorf("missing template: %v", err)
	}
}

func TestApplyWindow(t *testing.T) {
	c, target := setup(t, "upgrade-apply-window", map[string]string{upgrade.WindowAnnotation: "sat,sun 02:00 4h Europe/Berlin"})
	ctx := context.Background()
	// Monday: the namespace's window is closed.
	_, err := upgrade.ApplyPlan(ctx, c, upgrade.Plan{Target: target, Now: at("2025-06-09T10:00:00Z")})
	var r *upgrade.Refusal
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "outside the maintenance window (on Saturday and Sunday at 02:00 Europe/Berlin for 4h); the next window opens 2025-06-14 02:00 CEST") {
		t.Fatalf("outside the window: %v", err)
	}
	if got := template(t, c, target.Namespace); got != "acme-k0s-1-0-0" {
		t.Fatalf("patched outside the window: %s", got)
	}
	// An exclusion covers the next Saturday.
	_, err = upgrade.ApplyPlan(ctx, c, upgrade.Plan{Target: target, Now: at("2025-06-14T01:00:00Z"), Exclusions: []string{"2025-06-14/2025-06-14"}})
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "in an exclusion period") || !strings.Contains(r.Reason, "the next window opens 2025-06-15 02:00 CEST") {
		t.Fatalf("excluded: %v", err)
	}
	// Saturday 03:00 in Berlin: open. The dry run changes nothing.
	res, err := upgrade.ApplyPlan(ctx, c, upgrade.Plan{Target: target, Now: at("2025-06-14T01:00:00Z"), DryRun: true})
	if err != nil || res.Applied || !res.DryRun {
		t.Fatalf("dry run: %+v %v", res, err)
	}
	if got := template(t, c, target.Namespace); got != "acme-k0s-1-0-0" {
		t.Fatalf("dry run patched: %s", got)
	}
	res, err = upgrade.ApplyPlan(ctx, c, upgrade.Plan{Target: target, Now: at("2025-06-14T01:00:00Z")})
	if err != nil || !res.Applied {
		t.Fatalf("inside the window: %+v %v", res, err)
	}
	if res.Patch != `{"metadata":{"annotations":{"kbook.k0rdent.io/upgrade-from":"acme-k0s-1-0-0"}},"spec":{"template":"acme-k0s-1-1-0"}}` {
		t.Errorf("patch %s", res.Patch)
	}
	if got := template(t, c, target.Namespace); got != "acme-k0s-1-1-0" {
		t.Fatalf("not patched: %s", got)
	}
}

func TestApplyRefusesHazardsAndPins(t *testing.T) {
	c, target := setup(t, "upgrade-apply-hazards", nil)
	ctx := context.Background()
	target.To = "acme-k0s-2-0-0" // not offered, and skips v1.32
	_, err := upgrade.ApplyPlan(ctx, c, upgrade.Plan{Target: target})
	var r *upgrade.Refusal
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "refusing: 2 hazards found") {
		t.Fatalf("hazards: %v", err)
	}
	// --force sends it; the local API server has no kcm webhook, so it
	// is accepted here (a management cluster's kcm would forbid it).
	res, err := upgrade.ApplyPlan(ctx, c, upgrade.Plan{Target: target, Force: true, DryRun: true})
	if err != nil || !res.DryRun {
		t.Fatalf("forced dry run: %v", err)
	}
	// A pin is not overridden by --force.
	ri, _ := c.Resource("k0rdent.mirantis.com", "ClusterDeployment", target.Namespace)
	if _, err := ri.Patch(ctx, "dev-1", "application/merge-patch+json", []byte(`{"metadata":{"annotations":{"`+upgrade.PinAnnotation+`":"v1.31"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	target.To = "acme-k0s-1-1-0"
	_, err = upgrade.ApplyPlan(ctx, c, upgrade.Plan{Target: target, Force: true})
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "pinned to Kubernetes v1.31.x") || !strings.Contains(r.Reason, "--force does not") {
		t.Fatalf("pin: %v", err)
	}
	target.AllowK8sChange = true
	if _, err := upgrade.ApplyPlan(ctx, c, upgrade.Plan{Target: target, DryRun: true}); err != nil {
		t.Fatalf("--allow-k8s-change: %v", err)
	}
}

func TestApplyWaitTimesOut(t *testing.T) {
	c, target := setup(t, "upgrade-apply-wait", nil)
	// No controllers run here: nothing becomes ready. The polls are on a
	// clock that moves by what each waits: five, then the deadline.
	clock := &fakeClock{now: time.Date(2025, 6, 9, 10, 0, 0, 0, time.UTC)}
	res, err := upgrade.ApplyPlan(context.Background(), c, upgrade.Plan{Target: target, Wait: true, Timeout: time.Second, Poll: 200 * time.Millisecond,
		Now: clock.Now, After: clock.After})
	var r *upgrade.Refusal
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "timed out after 1s") || res.Status == nil || res.Status.Upgrade == nil {
		t.Fatalf("wait: %+v %v", res, err)
	}
	if len(clock.waited) != 5 {
		t.Errorf("polled after %v, want 5 waits of 200ms", clock.waited)
	}
}

// fakeClock is Apply's clock in tests: After moves Now on by what it is
// asked to wait, at once.
type fakeClock struct {
	now    time.Time
	waited []time.Duration
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.waited = append(c.waited, d)
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// An interrupt while following the upgrade: the patch is applied, and the
// error says the context ended (kbook upgrade apply tells the user the
// upgrade goes on).
func TestApplyWaitInterrupted(t *testing.T) {
	c, target := setup(t, "upgrade-apply-interrupt", nil)
	ctx, cancel := testctx.New(t)
	defer cancel()
	// The first progress line comes after the patch: interrupt there.
	log := cancelOnProgress{cancel: cancel}
	res, err := upgrade.ApplyPlan(ctx, c, upgrade.Plan{Target: target, Wait: true, Timeout: time.Minute, Poll: 100 * time.Millisecond, Logger: log})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted wait: %v", err)
	}
	if res == nil || !res.Applied {
		t.Fatalf("the patch was sent before the wait: %+v", res)
	}
}

type cancelOnProgress struct{ cancel func() }

func (l cancelOnProgress) Infof(format string, args ...any) {
	if strings.HasPrefix(fmt.Sprintf(format, args...), "upgrade to ") {
		l.cancel()
	}
}

// --at waits, then reads everything again: a change kcm makes meanwhile
// (here it stops offering the target) decides. An --at outside the window
// is refused at once.
func TestApplyAt(t *testing.T) {
	c, target := setup(t, "upgrade-apply-at", nil)
	ctx := context.Background()
	start := time.Now()
	_, err := upgrade.ApplyPlan(ctx, c, upgrade.Plan{Target: target, At: start.Add(time.Hour), Window: "daily 00:00 1m UTC",
		Now: func() time.Time { return time.Date(2025, 6, 9, 10, 0, 0, 0, time.UTC) }})
	var r *upgrade.Refusal
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "is outside the maintenance window") {
		t.Fatalf("--at outside the window: %v", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("the refusal waited %s", time.Since(start))
	}

	ri, err := c.Resource("k0rdent.mirantis.com", "ClusterDeployment", target.Namespace)
	if err != nil {
		t.Fatal(err)
	}
	// The wait is on an injected clock: kcm stops offering the target
	// while Apply waits, and the clock moves on by what it waited.
	clock := time.Date(2025, 6, 9, 10, 0, 0, 0, time.UTC)
	wait := 90 * time.Minute
	var waited []time.Duration
	after := func(d time.Duration) <-chan time.Time {
		waited = append(waited, d)
		if _, err := ri.Patch(ctx, "dev-1", "application/merge-patch+json", []byte(`{"status":{"availableUpgrades":[]}}`), metav1.PatchOptions{}, "status"); err != nil {
			t.Error(err)
		}
		clock = clock.Add(d)
		ch := make(chan time.Time, 1)
		ch <- clock
		return ch
	}
	_, err = upgrade.ApplyPlan(ctx, c, upgrade.Plan{Target: target, At: clock.Add(wait), Now: func() time.Time { return clock }, After: after})
	if !errors.As(err, &r) || !strings.Contains(r.Reason, "1 hazard") {
		t.Fatalf("after waiting, the target is no longer offered: %v", err)
	}
	if len(waited) != 1 || waited[0] != wait {
		t.Errorf("--at waited %v, want once %s", waited, wait)
	}
	if got := template(t, c, target.Namespace); got != "acme-k0s-1-0-0" {
		t.Errorf("template %s after the refusal", got)
	}
}
