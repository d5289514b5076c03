package target

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/report"
)

// TestReleaseK0rdent: on the local plane, each running controller is
// named with the version of the module the release builds it from (kcm's
// go.mod pins them); one that does not run is not named.
func TestReleaseK0rdent(t *testing.T) {
	r, err := controllers.K0rdent("")
	if err != nil {
		t.Fatal(err)
	}
	var running []string
	for _, c := range r.Controllers {
		if c.Name != controllers.CAPD {
			running = append(running, c.Name)
		}
	}
	k := releaseK0rdent(r, false, running)
	if k.Version != r.Version || k.Mode != "controllers (local)" || len(k.Components) != len(running) {
		t.Fatalf("k0rdent = %+v", k)
	}
	got := map[string]string{}
	for _, c := range k.Components {
		got[c.Name] = c.Version
	}
	if got[controllers.KCM] != r.Version || got[controllers.CAPD] != "" {
		t.Errorf("components %v: want kcm %s and no CAPD", got, r.Version)
	}
	for _, c := range r.Controllers {
		if want := r.Module(c.Module).Version; c.Name != controllers.CAPD && got[c.Name] != want {
			t.Errorf("component %s: %q, want %q", c.Name, got[c.Name], want)
		}
	}
	if api := releaseK0rdent(r, true, nil); api.Mode != "API only (local)" || len(api.Components) != 0 {
		t.Errorf("API only: %+v", api)
	}
}

// TestDescribeK0rdent: a result of a run on the local k0rdent plane
// records the k0rdent release and mode beside the Kubernetes version and
// the k0rdent APIs served. The plane runs API-only here: its controllers
// bind fixed ports (CAPD's 19000), and internal/plane's tests run them in
// a parallel test binary; TestReleaseK0rdent covers the controllers'
// versions, and the k0rdent runbooks of make test the whole plane.
func TestDescribeK0rdent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local API server with the k0rdent APIs; skipped with -short")
	}
	dir, why := binaries.Available()
	if why != "" {
		t.Skip(why)
	}
	r, err := controllers.K0rdent("")
	if err != nil {
		t.Fatal(err)
	}
	if _, why := controllers.K0rdentAwait(context.Background(), r, true, controllers.K0rdentLogger(apitest.Logger(t))); why != "" {
		t.Skip(why)
	}
	ctx := context.Background()
	target, err := New(ctx, cluster.Options{Backend: cluster.Local, AssetsDir: dir, K0rdent: r.Version, K0rdentAPIOnly: true, Procs: apitest.Procs(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := target.Close(ctx); err != nil {
			t.Error(err)
		}
	}()
	var env report.Environment
	target.Describe(ctx, &env)
	if env.Server != "" || env.K0rdent != nil {
		t.Fatalf("a target that was not started described %+v", env)
	}
	if err := target.Start(ctx); err != nil {
		t.Fatal(err)
	}
	target.Describe(ctx, &env)
	if !strings.HasPrefix(env.Server, "v1.") || !slices.Contains(env.APIs, "k0rdent.mirantis.com/v1beta1") {
		t.Errorf("server %q, APIs %v", env.Server, env.APIs)
	}
	if k := env.K0rdent; k == nil || k.Version != r.Version || k.Mode != "API only (local)" || k.Release != "" {
		t.Errorf("k0rdent = %+v, want %s API only, no Release (no kcm to report one)", k, r.Version)
	}
}
