package kube

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/assets"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The shared reference CRDs, beside the repository root.
const (
	k0rdentCRDs = "../../../shared/crds/k0rdent"
	capiCRDs    = "../../../shared/crds/capi"
)

// cluster is the one API server of this test binary, started by TestMain.
var cluster struct {
	cfg  *rest.Config
	skip string // why the integration tests skip
	err  error  // envtest did not start
	crds bool   // the shared k0rdent and CAPI CRDs are installed
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if testing.Short() {
		cluster.skip = "integration test: needs a real API server (envtest), skipped with -short"
		return m.Run()
	}
	dir, why := envtestAssets()
	if dir == "" {
		cluster.skip = why
		return m.Run()
	}
	var crdDirs []string
	for _, d := range []string{k0rdentCRDs, capiCRDs} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			crdDirs = append(crdDirs, d)
		}
	}
	cluster.crds = len(crdDirs) == 2
	no := false
	env := &envtest.Environment{
		BinaryAssetsDirectory:    dir,
		CRDDirectoryPaths:        crdDirs,
		ErrorIfCRDPathMissing:    true,
		UseExistingCluster:       &no,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	start := time.Now()
	cfg, err := env.Start()
	if err != nil {
		cluster.err = fmt.Errorf("start envtest with the binaries in %s: %w", dir, err)
		return m.Run()
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "envtest: API server with %d CRD folders up in %s\n", len(crdDirs), time.Since(start).Round(time.Millisecond))
	}
	cluster.cfg = cfg
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stop envtest: %v\n", err)
	}
	return code
}

// envtestAssets finds kube-apiserver and etcd without building them.
func envtestAssets() (dir, why string) {
	dir, why = assets.Available()
	if why != "" {
		why = "integration test: " + why
	}
	return dir, why
}

// needCluster skips t without an API server and fails it if envtest did not
// start.
func needCluster(t *testing.T) *rest.Config {
	t.Helper()
	if cluster.skip != "" {
		t.Skip(cluster.skip)
	}
	if cluster.err != nil {
		t.Fatal(cluster.err)
	}
	return cluster.cfg
}

// needCRDs is needCluster for tests that use the shared k0rdent and CAPI
// CRDs.
func needCRDs(t *testing.T) *rest.Config {
	t.Helper()
	cfg := needCluster(t)
	if !cluster.crds {
		t.Skipf("integration test: needs the reference CRDs in %s and %s (shared/ beside the repository root)", k0rdentCRDs, capiCRDs)
	}
	return cfg
}
