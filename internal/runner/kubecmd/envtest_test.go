package kubecmd

import (
	"fmt"
	"os"
	"sync/atomic"
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

// namespaces numbers the namespaces the tests create.
var namespaces atomic.Int64

// newNamespaceName returns prefix and a number no other call in this test
// binary gets. The tests create their namespaces under such names so that
// they pass run again in the same binary (go test -count=2): the API
// server runs no namespace controller, so a namespace a run deleted stays
// Terminating and its name cannot be created again.
func newNamespaceName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, namespaces.Add(1))
}
