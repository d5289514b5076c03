package plane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/helmrepo"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/template/scaffold"
	"helm.sh/helm/v3/pkg/chart/loader"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// server is the API server of this test binary: the plane's tests and
// benchmarks share it, one plane at a time.
var server = apitest.New()

// planeRuns counts TestPlane's runs in this process.
var planeRuns atomic.Int32

// startPlane starts the release's plane on srv.
func startPlane(tb testing.TB, srv *apitest.Server) (*Plane, *rest.Config) {
	tb.Helper()
	r, err := controllers.K0rdent("")
	if err != nil {
		tb.Fatal(err)
	}
	paths, why := controllers.K0rdentAwait(context.Background(), r, false, controllers.K0rdentLogger(apitest.Logger(tb)))
	if why != "" {
		tb.Skip(why)
	}
	cfg := srv.Config(tb)
	p, err := Start(context.Background(), Options{
		Release: r, Paths: paths, RESTConfig: cfg, StateDir: tb.TempDir(), Logger: apitest.Logger(tb),
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := p.Stop(); err != nil {
			tb.Errorf("stop: %v", err)
		}
	})
	return p, cfg
}

var (
	ctGVR   = k0rdent.GVR("clustertemplates")
	credGVR = k0rdent.GVR("credentials")
	cdGVR   = k0rdent.GVR("clusterdeployments")

	clusterGVR    = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "clusters"}
	machineGVR    = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "machines"}
	devClusterGVR = schema.GroupVersionResource{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Resource: "devclusters"}
	devMachineGVR = schema.GroupVersionResource{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Resource: "devmachines"}
)

// lifecycle drives one template from publish to a Ready cluster and
// returns how long valid and Ready took.
type lifecycle struct {
	cfg *rest.Config
	dc  dynamic.Interface
	cs  kubernetes.Interface
	ns  string
	url string
}

func newLifecycle(tb testing.TB, p *Plane, cfg *rest.Config, ns string) *lifecycle {
	tb.Helper()
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	return &lifecycle{cfg: cfg, dc: dc, cs: cs, ns: ns, url: p.RepoURL()}
}

// publish scaffolds an in-memory chart and publishes it as kbook template
// publish does; it returns the ClusterTemplate name.
func (l *lifecycle) publish(tb testing.TB, name string) string {
	tb.Helper()
	return l.publishChart(tb, scaffold.ChartOptions{Name: name, Provider: "inmemory"})
}

// publishChart is publish of the chart template init writes with o.
func (l *lifecycle) publishChart(tb testing.TB, o scaffold.ChartOptions) string {
	tb.Helper()
	name := o.Name
	dir := filepath.Join(tb.TempDir(), name)
	o.Dir = dir
	if _, _, err := scaffold.Init(o); err != nil {
		tb.Fatal(err)
	}
	ch, err := loader.Load(dir)
	if err != nil {
		tb.Fatal(err)
	}
	archive, err := helmrepo.Package(ch)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := helmrepo.Publish(context.Background(), rest.CopyConfig(l.cfg), archive, helmrepo.PublishOptions{Namespace: l.ns}); err != nil {
		tb.Fatal(err)
	}
	tmpl := name + "-0-1-0"
	ct := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "k0rdent.mirantis.com/v1beta1", "kind": "ClusterTemplate",
		"metadata": map[string]any{"name": tmpl, "namespace": l.ns},
		"spec": map[string]any{"helm": map[string]any{"chartSpec": map[string]any{
			"chart": name, "version": "0.1.0", "interval": "10m0s",
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": helmrepo.DefaultRepoName},
		}}},
	}}
	if _, err := l.dc.Resource(ctGVR).Namespace(l.ns).Create(context.Background(), ct, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	return tmpl
}

func (l *lifecycle) wait(tb testing.TB, gvr schema.GroupVersionResource, name string, timeout time.Duration, done func(*unstructured.Unstructured) bool) time.Duration {
	tb.Helper()
	start := time.Now()
	var last *unstructured.Unstructured
	for time.Since(start) < timeout {
		o, err := l.dc.Resource(gvr).Namespace(l.ns).Get(context.Background(), name, metav1.GetOptions{})
		if err == nil {
			last = o
			if done(o) {
				return time.Since(start)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	tb.Fatalf("%s %s not done after %s; last status: %v", gvr.Resource, name, timeout, last)
	return 0
}

// gone waits until an object no longer exists and returns how long that
// took.
func (l *lifecycle) gone(tb testing.TB, gvr schema.GroupVersionResource, name string, timeout time.Duration) time.Duration {
	tb.Helper()
	start := time.Now()
	var last *unstructured.Unstructured
	for time.Since(start) < timeout {
		o, err := l.dc.Resource(gvr).Namespace(l.ns).Get(context.Background(), name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return time.Since(start)
		}
		if err == nil {
			last = o
		}
		time.Sleep(100 * time.Millisecond)
	}
	tb.Fatalf("%s %s still exists after %s; last status: %v", gvr.Resource, name, timeout, last)
	return 0
}

// undeploy deletes a ClusterDeployment and waits until it, its Cluster,
// the Cluster's machines and its DevCluster are gone: how long that took.
func (l *lifecycle) undeploy(tb testing.TB, name string) time.Duration {
	tb.Helper()
	ctx := context.Background()
	start := time.Now()
	if err := l.dc.Resource(cdGVR).Namespace(l.ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		tb.Fatal(err)
	}
	l.gone(tb, cdGVR, name, 3*time.Minute)
	took := time.Since(start)
	for _, gvr := range []schema.GroupVersionResource{clusterGVR, devClusterGVR} {
		l.gone(tb, gvr, name, time.Second)
	}
	for _, gvr := range []schema.GroupVersionResource{machineGVR, devMachineGVR} {
		list, err := l.dc.Resource(gvr).Namespace(l.ns).List(ctx, metav1.ListOptions{LabelSelector: "cluster.x-k8s.io/cluster-name=" + name})
		if err != nil {
			tb.Fatal(err)
		}
		for _, o := range list.Items {
			tb.Errorf("%s %s left after its ClusterDeployment was deleted", gvr.Resource, o.GetName())
		}
	}
	return took
}

func valid(o *unstructured.Unstructured) bool {
	v, _, _ := unstructured.NestedBool(o.Object, "status", "valid")
	return v
}

func ready(o *unstructured.Unstructured) bool { return conditionTrue(o, "Ready") }

// deploy creates a Credential and a ClusterDeployment from tmpl.
func (l *lifecycle) deploy(tb testing.TB, tmpl, name string) {
	tb.Helper()
	ctx := context.Background()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "inmemory-identity", Namespace: l.ns,
		Labels: map[string]string{"k0rdent.mirantis.com/component": "kcm"}}}
	if _, err := l.cs.CoreV1().Secrets(l.ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil && !strings.Contains(err.Error(), "already exists") {
		tb.Fatal(err)
	}
	cred := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "k0rdent.mirantis.com/v1beta1", "kind": "Credential",
		"metadata": map[string]any{"name": "inmemory-credential", "namespace": l.ns},
		"spec":     map[string]any{"identityRef": map[string]any{"apiVersion": "v1", "kind": "Secret", "name": "inmemory-identity", "namespace": l.ns}},
	}}
	if _, err := l.dc.Resource(credGVR).Namespace(l.ns).Create(ctx, cred, metav1.CreateOptions{}); err != nil && !strings.Contains(err.Error(), "already exists") {
		tb.Fatal(err)
	}
	l.wait(tb, credGVR, "inmemory-credential", time.Minute, func(o *unstructured.Unstructured) bool {
		r, _, _ := unstructured.NestedBool(o.Object, "status", "ready")
		return r
	})
	cd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "k0rdent.mirantis.com/v1beta1", "kind": "ClusterDeployment",
		"metadata": map[string]any{"name": name, "namespace": l.ns},
		"spec": map[string]any{"template": tmpl, "credential": "inmemory-credential",
			"config": map[string]any{"clusterIdentity": map[string]any{"name": "inmemory-identity"},
				"controlPlane": map[string]any{"replicas": int64(1)}, "worker": map[string]any{"replicas": int64(1)}}},
	}}
	if _, err := l.dc.Resource(cdGVR).Namespace(l.ns).Create(ctx, cd, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
}

// TestPlane starts the real plane and checks the bootstrap (Release,
// ProviderTemplates, Management components installed by helm-controller),
// a template made valid by kcm, a cluster made Ready by CAPI and kcm, a
// crash report, and that Stop leaves no process behind.
func TestPlane(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the k0rdent plane")
	}
	// A run after the first (-count=N) gets an API server of its own: the
	// shared one keeps the first plane's Management, whose stale status
	// would pass for the new plane's.
	srv := server
	if planeRuns.Load() > 0 {
		srv = apitest.New()
		t.Cleanup(srv.Stop) // after the plane's Stop: cleanups run last first
	}
	p, cfg := startPlane(t, srv)
	if got := len(p.Controllers()); got != 7 {
		t.Fatalf("running %v", p.Controllers())
	}
	dc, _ := dynamic.NewForConfig(cfg)
	ctx := context.Background()

	// The bootstrap: kcm's own Release is ready and the components are
	// really installed (a HelmRelease per component, the stub's ConfigMap).
	rel, err := dc.Resource(releaseGVR).Get(ctx, "kcm-1-11-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedBool(rel.Object, "status", "ready"); !r {
		t.Errorf("release not ready: %v", rel.Object["status"])
	}
	mgmt, err := dc.Resource(managementGVR).Get(ctx, k0rdent.ManagementName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	comps, _, _ := unstructured.NestedMap(mgmt.Object, "status", "components")
	for _, c := range []string{"kcm", "capi", "cluster-api-provider-docker", KubeadmProvider, "projectsveltos"} {
		m, _ := comps[c].(map[string]any)
		if ok, _ := m["success"].(bool); !ok {
			t.Errorf("component %s: %v", c, comps[c])
		}
	}
	providers, _, _ := unstructured.NestedStringSlice(mgmt.Object, "status", "availableProviders")
	for _, want := range []string{"infrastructure-docker", "bootstrap-kubeadm", "control-plane-kubeadm"} {
		if !strings.Contains(strings.Join(providers, ","), want) {
			t.Errorf("availableProviders %v lacks %s", providers, want)
		}
	}
	cs, _ := kubernetes.NewForConfig(cfg)
	cms, err := cs.CoreV1().ConfigMaps(k0rdent.SystemNamespace).List(ctx, metav1.ListOptions{LabelSelector: k0rdent.StubLabel + "=true"})
	if err != nil || len(cms.Items) < 3 {
		t.Errorf("stub charts not installed by helm-controller: %v %v", cms, err)
	}

	// A template and a cluster.
	l := newLifecycle(t, p, cfg, fmt.Sprintf("plane-test-%d", planeRuns.Add(1)))
	tmpl := l.publish(t, "acme-mem")
	t.Logf("ClusterTemplate valid in %s", l.wait(t, ctGVR, tmpl, 2*time.Minute, valid))
	l.deploy(t, tmpl, "dev-1")
	t.Logf("ClusterDeployment Ready in %s", l.wait(t, cdGVR, "dev-1", 3*time.Minute, ready))

	// Deleting it: kcm refuses to delete the template while the cluster
	// uses it; helm-controller uninstalls the chart, Cluster API deletes
	// the machines, then the DevCluster (which the chart keeps out of the
	// uninstall: see the skeleton's devcluster.yaml); then kcm lets the
	// template go.
	ct := l.dc.Resource(ctGVR).Namespace(l.ns)
	if err := ct.Delete(ctx, tmpl, metav1.DeleteOptions{}); err == nil || !strings.Contains(err.Error(), "template deletion is forbidden") {
		t.Errorf("deleting a template in use: %v, want kcm's refusal", err)
	}
	t.Logf("ClusterDeployment, Cluster and machines deleted in %s", l.undeploy(t, "dev-1"))
	if err := ct.Delete(ctx, tmpl, metav1.DeleteOptions{}); err != nil {
		t.Errorf("deleting the template no cluster uses: %v", err)
	}

	// A controller that dies is reported with its log.
	pids := p.PIDs()
	if err := syscall.Kill(pids[controllers.CAPD], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-p.Crashes():
		if c.Name != controllers.CAPD || c.LogPath == "" {
			t.Errorf("crash = %v", c)
		}
	case <-time.After(10 * time.Second):
		t.Error("no crash report for a killed controller")
	}

	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	for name, pid := range pids {
		if alive(pid) {
			t.Errorf("%s (pid %d) runs after Stop", name, pid)
		}
	}
}

// BenchmarkLocalK0rdent measures the plane against the targets: warm
// start to Management ready (≤ 30 s), ClusterTemplate apply to valid,
// ClusterDeployment apply to Ready (≤ 60 s), the resident memory of the
// whole plane, API server included (≤ 1.5 GiB), and ClusterDeployment
// delete until its Cluster and machines are gone. Run it once:
//
//	go test -run '^$' -bench LocalK0rdent -benchtime 1x ./internal/plane/
func BenchmarkLocalK0rdent(b *testing.B) {
	for i := range b.N {
		b.StopTimer()
		start := time.Now()
		p, cfg := startPlane(b, server)
		startup := time.Since(start)
		l := newLifecycle(b, p, cfg, fmt.Sprintf("bench-%d-%d", os.Getpid(), i))
		tmpl := l.publish(b, "bench-mem")
		validIn := l.wait(b, ctGVR, tmpl, 2*time.Minute, valid)
		l.deploy(b, tmpl, "bench-1")
		readyIn := l.wait(b, cdGVR, "bench-1", 3*time.Minute, ready)
		rss := planeRSS(p)
		deleteIn := l.undeploy(b, "bench-1")
		b.ReportMetric(startup.Seconds(), "start-s")
		b.ReportMetric(validIn.Seconds(), "valid-s")
		b.ReportMetric(readyIn.Seconds(), "ready-s")
		b.ReportMetric(float64(rss)/(1<<20), "rss-MiB")
		b.ReportMetric(deleteIn.Seconds(), "delete-s")
		b.Logf("warm start %s (target 30s), template valid in %s, cluster Ready in %s (target 60s), RSS %d MiB (target 1536 MiB), cluster deleted in %s",
			startup.Round(100*time.Millisecond), validIn.Round(100*time.Millisecond), readyIn.Round(100*time.Millisecond), rss>>20, deleteIn.Round(100*time.Millisecond))
		_ = p.Stop()
	}
}

// planeRSS sums the resident memory of the controllers and of the API
// server's kube-apiserver and etcd (children of this test process).
func planeRSS(p *Plane) int64 {
	var total int64
	for _, pid := range p.PIDs() {
		total += rssOf(pid)
	}
	entries, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		comm := s[strings.IndexByte(s, '(')+1 : i]
		if len(f) > 1 && f[1] == strconv.Itoa(self) && (comm == "kube-apiserver" || comm == "etcd") {
			total += rssOf(pid)
		}
	}
	return total
}

func rssOf(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
