package status_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/status"
	"github.com/k0rdent/kbook/internal/status/statustest"
	"github.com/k0rdent/kbook/internal/testctx"
)

var crdDirs = apitest.SharedCRDs("k0rdent", "capi", "k0smotron")

var server = apitest.New(append(crdDirs, "testdata/helmreleases-crd.yaml")...)

func TestMain(m *testing.M) {
	code := m.Run()
	server.Stop()
	os.Exit(code)
}

// client returns a client of a new namespace named after prefix, and the
// namespace's name.
func client(t *testing.T, prefix string) (*status.Client, string) {
	t.Helper()
	statustest.Skip(t, crdDirs, 3)
	cfg := server.Config(t)
	ns := statustest.Namespace(t, cfg, prefix, nil)
	c, err := status.NewClient(cfg, ns, "test")
	if err != nil {
		t.Fatal(err)
	}
	return c, ns
}

// TestCollect: a deployment in the middle of an upgrade whose Helm upgrade
// failed to render, with one worker machine failing.
func TestCollect(t *testing.T) {
	c, ns := client(t, "status-collect")
	statustest.Apply(t, c, ns, "testdata/objects.yaml", "testdata/status.yaml")
	tree, err := status.Collect(context.Background(), c, ns, "dev-1")
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	now, _ := time.Parse(time.RFC3339, "2025-06-01T10:10:00Z")
	status.WriteText(&sb, tree, now)
	out := sb.String()
	for _, want := range []string{
		"ClusterDeployment/dev-1 ",
		"├─ClusterTemplate/acme-k0s-1-1-0  ",
		"├─HelmRelease/dev-1 ",
		"acme-k0s 1.0.0",
		"condition HelmReleaseReady=False UpgradeFailed: Helm upgrade failed",
		"└─Cluster/dev-1 ",
		"ClusterInfrastructure - DockerCluster/dev-1",
		"ControlPlane - K0sControlPlane/dev-1-cp",
		"v1.31.5+k0s.0 → v1.32.2+k0s.0",
		"3/3 ready, 0 up to date",
		"3 Machines...",
		"└─Workers",
		"MachineDeployment/dev-1-md",
		"1/2 ready, 0 up to date",
		"Machine/dev-1-md-b ",
		"condition InfrastructureReady=False NotReady: failed to create the container: no space left on device",
		"Upgrade in progress: acme-k0s-1-0-0 → acme-k0s-1-1-0 (chart 1.0.0 → 1.1.0)",
		"[x] kcm reconciled the new template",
		"[ ] HelmRelease upgraded to chart 1.1.0 (deployed acme-k0s 1.0.0, Ready=False)",
		"Likely cause:\n  chart failed to render with spec.config: Helm upgrade failed",
		"Ready: no",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if tree.Ready || tree.Upgrade == nil || tree.Upgrade.Done {
		t.Errorf("ready %v upgrade %+v", tree.Ready, tree.Upgrade)
	}
	// The worker machine that is ready and the failing one are apart.
	if strings.Contains(out, "2 Machines...") {
		t.Errorf("a failing machine was grouped:\n%s", out)
	}
}

// TestCauses: what is missing or not ready before anything installs.
func TestCauses(t *testing.T) {
	c, ns := client(t, "status-causes")
	statustest.Apply(t, c, ns, "testdata/broken.yaml", "testdata/broken-status.yaml")
	tree, err := status.Collect(context.Background(), c, ns, "dev-2")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(tree.Causes, "\n")
	for _, want := range []string{
		"template invalid: the ClusterTemplate acme-k0s-9-9-9 is not valid: failed to parse chart: Chart.yaml file is missing",
		"credential not ready: the Credential aws-cred is not ready",
		"provider not exposed: failed to validate required providers: incompatible providers in Management kcm: one or more required providers are not deployed yet: [infrastructure-aws]",
		"not installed: kcm has not created the HelmRelease dev-2",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no cause %q in\n%s", want, got)
		}
	}
	if _, err := status.Collect(context.Background(), c, ns, "nope"); !errors.Is(err, status.ErrNotFound) {
		t.Errorf("missing deployment: %v", err)
	}
}

func TestPrintExample(t *testing.T) {
	if os.Getenv("KBOOK_PRINT") == "" {
		t.Skip("set KBOOK_PRINT=1 to print the tree")
	}
	c, ns := client(t, "status-print")
	statustest.Apply(t, c, ns, "testdata/objects.yaml", "testdata/status.yaml")
	tree, err := status.Collect(context.Background(), c, ns, "dev-1")
	if err != nil {
		t.Fatal(err)
	}
	now, _ := time.Parse(time.RFC3339, "2025-06-01T10:10:00Z")
	status.WriteText(os.Stdout, tree, now)
}

// TestWatch: the tree is shown once, again when an object changes, and
// not for ages alone; Watch ends with its context.
func TestWatch(t *testing.T) {
	c, ns := client(t, "status-watch")
	statustest.Apply(t, c, ns, "testdata/objects.yaml", "testdata/status.yaml")
	ctx, cancel := testctx.New(t)
	defer cancel()
	type shown struct {
		tree  *status.Tree
		first bool
	}
	trees := make(chan shown, 10)
	done := make(chan error, 1)
	// Each read but the first waits for a tick: Watch has taken a tick
	// only once the read before it is shown or not.
	tick := make(chan time.Time)
	go func() {
		done <- status.Watch(ctx, c, ns, "dev-1", func() <-chan time.Time { return tick }, func(tree *status.Tree, first bool) {
			trees <- shown{tree, first}
		})
	}()
	if s := <-trees; !s.first || s.tree.Ready {
		t.Fatalf("first %v, ready %v", s.first, s.tree.Ready)
	}
	// Ages change between reads; nothing else does: five more reads, the
	// sixth tick taken once the fifth is done, and no redraw.
	for range 6 {
		tick <- time.Now()
	}
	if n := len(trees); n != 0 {
		t.Fatalf("%d redraws without a change", n)
	}
	statustest.WriteStatus(t, c, ns, "testdata/watch-status.yaml")
	go func() {
		select {
		case tick <- time.Now():
		case <-ctx.Done():
		}
	}()
	select {
	case s := <-trees:
		if s.first {
			t.Error("the redraw says first")
		}
		for _, n := range s.tree.Root.Children {
			if n.Kind == "HelmRelease" && n.Ready != "True" {
				t.Errorf("after the change the HelmRelease is Ready=%s", n.Ready)
			}
		}
	case <-ctx.Done():
		t.Fatal("no redraw after the HelmRelease changed")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Watch after cancel: %v", err)
	}
}
