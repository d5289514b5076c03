package cluster

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/proc"
)

// sharedCRDs are the reference CRDs beside the repository, if present.
var sharedCRDs = func() []string {
	var out []string
	for _, d := range []string{"k0rdent", "capi"} {
		p := filepath.Join("..", "..", "..", "shared", "crds", d)
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}()

var (
	localOnce sync.Once
	testLocal Cluster
	localErr  error
)

// localCluster starts one local API server for the package's tests (with
// the shared CRDs when present) or skips.
func startLocal(t *testing.T) Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a local API server; skipped with -short")
	}
	dir, why := binaries.Available()
	if why != "" {
		t.Skip(why)
	}
	localOnce.Do(func() {
		testLocal, localErr = Up(context.Background(), Options{Backend: Local, AssetsDir: dir, CRDs: sharedCRDs, Procs: apitest.Procs(t)})
	})
	if localErr != nil {
		t.Fatal(localErr)
	}
	return testLocal
}

func TestMain(m *testing.M) {
	proc.RunWrapper() // the test binary wraps the servers of TestLocalTracked
	code := m.Run()
	if testLocal != nil {
		_ = testLocal.Stop(context.Background())
	}
	apitest.CloseProcs()
	os.Exit(code)
}

// TestKubeconfigBackend points the kubeconfig backend at the local server.
func TestKubeconfigBackend(t *testing.T) {
	c := startLocal(t)
	kc, err := c.Kubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(file, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := Up(t.Context(), Options{Backend: Kubeconfig, Kubeconfig: file})
	if err != nil {
		t.Fatal(err)
	}
	if k.Backend() != Kubeconfig {
		t.Errorf("backend %s", k.Backend())
	}
	if v, err := ServerVersion(k); err != nil || v != binaries.KubernetesVersion {
		t.Errorf("version %q, %v; want %s", v, err, binaries.KubernetesVersion)
	}
	if err := k.Stop(t.Context()); err != nil {
		t.Error(err)
	}
	// Stop never touches an existing cluster.
	if _, err := ServerVersion(c); err != nil {
		t.Errorf("local server gone after the kubeconfig cluster stopped: %v", err)
	}
}

// TestKind runs only where a container runtime answers.
func TestKind(t *testing.T) {
	rt, err := DetectRuntime()
	if err != nil {
		t.Skipf("kind backend not exercised: %v", err)
	}
	if os.Getenv("KBOOK_TEST_KIND") != "1" {
		t.Skipf("found %s; set KBOOK_TEST_KIND=1 to create a kind cluster (several minutes)", rt.Name)
	}
	c, err := Up(t.Context(), Options{Backend: Kind, Name: "kbook-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop(context.Background())
	if _, err := ServerVersion(c); err != nil {
		t.Fatal(err)
	}
}

// TestLocalTracked starts a local cluster with a process registry: etcd and
// kube-apiserver are recorded under their own pids while they run, their
// data and certificates live inside the registry and not in envtest's
// temporary directories, and Stop leaves nothing behind.
func TestLocalTracked(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local API server; skipped with -short")
	}
	dir, why := binaries.Available()
	if why != "" {
		t.Skip(why)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	reg, err := proc.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	c, err := Up(t.Context(), Options{Backend: Local, AssetsDir: dir, Procs: reg})
	if err != nil {
		t.Fatal(err)
	}
	records, _ := filepath.Glob(filepath.Join(reg.Dir(), "p-*.json"))
	var servers []proc.Process
	for _, f := range records {
		var p proc.Process
		data, _ := os.ReadFile(f)
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatal(err)
		}
		if p.Running() {
			servers = append(servers, p)
		}
	}
	if len(servers) != 2 {
		t.Fatalf("running recorded processes %v, want etcd and kube-apiserver", servers)
	}
	for _, p := range servers {
		if b := filepath.Base(p.Exe); b != binaries.Etcd && b != binaries.KubeAPIServer {
			t.Errorf("recorded %s runs %s", p, p.Exe)
		}
	}
	if data, _ := filepath.Glob(filepath.Join(reg.Dir(), "tmp", "kbook-*")); len(data) != 2 {
		t.Errorf("data and certificate directories in the registry: %v", data)
	}
	if err := c.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, p := range servers {
		if p.Running() {
			t.Errorf("%s still runs after Stop", p)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(reg.Dir(), "tmp", "*")); len(left) != 0 {
		t.Errorf("left in the registry after Stop: %v", left)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}
