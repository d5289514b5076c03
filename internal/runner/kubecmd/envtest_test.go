package kubecmd

import (
	"os"
	"testing"

	"github.com/k0rdent/kbook/internal/apitest"
	"k8s.io/client-go/rest"
)

// sharedCRDs are the reference k0rdent and CAPI CRDs, where present.
var sharedCRDs = apitest.SharedCRDs("k0rdent", "capi")

// server is the one API server of this test binary.
var server = apitest.New(sharedCRDs...)

func TestMain(m *testing.M) {
	code := m.Run()
	server.Stop()
	os.Exit(code)
}

// needCluster skips t without an API server and fails it if envtest did not
// start.
func needCluster(t *testing.T) *rest.Config {
	t.Helper()
	return server.Config(t)
}

// needCRDs is needCluster for tests that use the shared k0rdent and CAPI
// CRDs.
func needCRDs(t *testing.T) *rest.Config {
	t.Helper()
	cfg := server.Config(t)
	if len(sharedCRDs) != 2 {
		t.Skip("integration test: needs the reference CRDs in shared/crds/k0rdent and shared/crds/capi beside the repository root")
	}
	return cfg
}
