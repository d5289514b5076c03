package runcluster

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/assets"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/report"
)

// TestDescribeK0rdent: on the local k0rdent plane (kbook run --k0rdent),
// what a result records names the k0rdent release, the Release kcm
// reports, and each controller with the version it was built from,
// besides the Kubernetes version and the k0rdent APIs served.
func TestDescribeK0rdent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the k0rdent plane; skipped with -short")
	}
	dir, why := assets.Available()
	if why != "" {
		t.Skip(why)
	}
	r, err := assets.K0rdent("")
	if err != nil {
		t.Fatal(err)
	}
	if _, why := assets.K0rdentAvailable(r, false); why != "" {
		t.Skip(why)
	}
	ctx := context.Background()
	target, err := New(ctx, cluster.Options{Backend: cluster.Local, AssetsDir: dir, K0rdent: r.Version})
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
	k := env.K0rdent
	if k == nil {
		t.Fatal("no k0rdent recorded on the k0rdent plane")
	}
	if k.Version != r.Version || k.Mode != "controllers (local)" || !strings.HasPrefix(k.Release, "kcm-") {
		t.Errorf("k0rdent = %+v", k)
	}
	want := map[string]string{}
	for _, c := range r.Controllers {
		want[c.Name] = r.Module(c.Module).Version
	}
	got := map[string]string{}
	for _, c := range k.Components {
		got[c.Name] = c.Version
	}
	if len(got) != len(want) || got[assets.KCM] != r.Version {
		t.Errorf("components %v, want %v", got, want)
	}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("component %s: %q, want %q", name, got[name], v)
		}
	}
}
