package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/cluster/plane"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/helmrepo"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/template/publish"
	"github.com/k0rdent/kbook/internal/template/scaffold"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestPlaneSnapshotStart starts the local k0rdent plane with its
// controllers five times from one snapshot directory: the first start
// bootstraps it, saves the snapshot and starts again from it; the second
// starts from it, its webhooks where the snapshot's were, and the plane
// really reconciles (a template published to this run's repository is
// made valid by kcm through Flux); with the snapshot's wiring damaged the
// next one warns and patches the CRDs' webhooks instead; after the
// snapshot's database was damaged the fourth warns, bootstraps afresh and
// saves a new snapshot; when the restored plane does not become ready in
// time the fifth warns, removes the snapshot and bootstraps afresh.
func TestPlaneSnapshotStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the k0rdent plane; skipped with -short")
	}
	dir, r := planeAssets(t)
	snaps := t.TempDir()
	// A restored plane serves its webhooks where the snapshot's did.
	const noPatch = "webhook ports and CA reused (no CRD patched)"
	steps := []struct {
		name         string
		before       func(t *testing.T)
		want, unwant []string
		reconciles   bool
	}{
		{"first start bootstraps, saves and restores", nil,
			[]string{"k0rdent " + r.Version + " CRDs", "saved a snapshot of the bootstrapped k0rdent plane", "rewired the restored plane", noPatch, "started the k0rdent plane from its snapshot"}, []string{"warning"}, false},
		{"second start restores and reconciles", nil,
			[]string{"started the k0rdent plane from its snapshot", noPatch}, []string{"installed", "saved", "warning"}, true},
		{"a damaged wiring is rewired", func(t *testing.T) {
			ws, _ := filepath.Glob(filepath.Join(snaps, "*", wiringName))
			if len(ws) != 1 {
				t.Fatalf("snapshot wirings: %v", ws)
			}
			if err := os.WriteFile(ws[0], []byte(`{"webhookPorts":{}}`), 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{"warning: the snapshot's webhook wiring cannot be used", "wiring.json differs from its manifest", "CRDs' conversion webhooks", "started the k0rdent plane from its snapshot"}, []string{"installed", "saved", noPatch}, true},
		{"a damaged snapshot is made anew", func(t *testing.T) { damageSnapshot(t, snaps) },
			[]string{"warning: snapshot ", "differs from its manifest", "k0rdent " + r.Version + " CRDs", "saved a snapshot of the bootstrapped k0rdent plane", "started the k0rdent plane from its snapshot"}, nil, false},
		{"a restore that fails falls back", func(t *testing.T) {
			old := restoreTimeout
			restoreTimeout = time.Millisecond
			t.Cleanup(func() { restoreTimeout = old })
		}, []string{"warning: the k0rdent plane restored from snapshot", "did not become ready", "k0rdent " + r.Version + " CRDs", "Management ready"}, []string{"saved"}, true},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.before != nil {
				st.before(t)
			}
			log := &lines{}
			c, err := Up(context.Background(), Options{Backend: Local, AssetsDir: dir, K0rdent: r.Version, SnapshotDir: snaps, Logger: log, Procs: apitest.Procs(t)})
			if err != nil {
				t.Fatalf("%v\n%s", err, log)
			}
			defer c.Stop(context.Background())
			for _, w := range st.want {
				if !strings.Contains(log.String(), w) {
					t.Errorf("log lacks %q:\n%s", w, log)
				}
			}
			for _, w := range st.unwant {
				if strings.Contains(log.String(), w) {
					t.Errorf("log has %q:\n%s", w, log)
				}
			}
			if st.reconciles {
				templateValid(t, c.RESTConfig(), PlaneOf(c).RepoURL())
			}
		})
	}
	if left, _ := filepath.Glob(filepath.Join(snaps, "*", manifestName)); len(left) != 0 {
		t.Errorf("the snapshot whose plane failed is still there: %v", left)
	}
}

// templateValid publishes a scaffolded chart to the plane's repository as
// kbook template publish does, creates its ClusterTemplate and waits until
// kcm says it is valid: source-controller fetched the chart from this
// run's repository and kcm read it.
func templateValid(t *testing.T, cfg *rest.Config, repoURL string) {
	t.Helper()
	ctx := context.Background()
	const ns, name = "snapshot-test", "acme-snap"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	chartDir := filepath.Join(t.TempDir(), name)
	if _, _, err := scaffold.Init(scaffold.ChartOptions{Name: name, Dir: chartDir, Provider: "inmemory"}); err != nil {
		t.Fatal(err)
	}
	// Published as kbook template publish does, the repository found
	// through the Locator ConfigMap, which must name this run's.
	pub, err := publish.Publish(ctx, publish.Options{Chart: chartDir, Config: rest.CopyConfig(cfg), PublishOptions: helmrepo.PublishOptions{Namespace: ns}})
	if err != nil {
		t.Fatal(err)
	}
	if pub.URL != repoURL {
		t.Fatalf("published to %s, want this run's repository %s", pub.URL, repoURL)
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ct := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": k0rdent.APIVersion, "kind": "ClusterTemplate",
		"metadata": map[string]any{"name": name + "-0-1-0", "namespace": ns},
		"spec": map[string]any{"helm": map[string]any{"chartSpec": map[string]any{
			"chart": name, "version": "0.1.0", "interval": "10m0s",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": helmrepo.DefaultRepoName},
		}}},
	}}
	res := dc.Resource(k0rdent.GVR("clustertemplates")).Namespace(ns)
	if _, err := res.Create(ctx, ct, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Watched, not timed: the deadline only ends a wait that would hang.
	deadline := time.Now().Add(2 * time.Minute)
	var last *unstructured.Unstructured
	for time.Now().Before(deadline) {
		o, err := res.Get(ctx, ct.GetName(), metav1.GetOptions{})
		if err == nil {
			last = o
			if v, _, _ := unstructured.NestedBool(o.Object, "status", "valid"); v {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("ClusterTemplate %s not valid on the restored plane; last: %v", ct.GetName(), last)
}

// planeAssets skips unless the local API server's binaries and the default
// k0rdent release's controllers are there, and holds the machine's plane
// lock (CAPD's fixed port) until tb ends. It returns the binaries' folder
// and the release.
func planeAssets(tb testing.TB) (string, *controllers.K0rdentRelease) {
	tb.Helper()
	dir, why := binaries.Available()
	if why != "" {
		tb.Skip(why)
	}
	r, err := controllers.K0rdent("")
	if err != nil {
		tb.Fatal(err)
	}
	if _, why := controllers.K0rdentAwait(context.Background(), r, false, controllers.K0rdentLogger(apitest.Logger(tb))); why != "" {
		tb.Skip(why)
	}
	// Its plane starts hold the lock once more: no other process's plane
	// between them, and no queueing again before each.
	unlock, err := plane.LockMachine(context.Background(), func(msg string) { tb.Log(msg) })
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(unlock)
	return dir, r
}
