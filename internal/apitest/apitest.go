// Package apitest gives tests a real Kubernetes API server: kube-apiserver
// and etcd started through controller-runtime's envtest, once per test
// binary, on first use. Tests skip, with the reason, under -short and where
// the binaries are not available (it never builds them: see package
// assets), and fail when the server does not start.
package apitest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/assets"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Server is an API server for one test binary.
type Server struct {
	crdDirs []string

	once sync.Once
	env  *envtest.Environment
	cfg  *rest.Config
	skip string
	err  error
}

// New describes a server that installs the CRDs in crdDirs; it starts on
// the first call of Config.
func New(crdDirs ...string) *Server { return &Server{crdDirs: crdDirs} }

// SharedCRDs returns the reference CRD folders shared/crds/<name> beside
// the repository root, seen from a package two levels below it, for the
// names that exist there (shared/ is absent in a clone elsewhere).
func SharedCRDs(names ...string) []string {
	var out []string
	for _, n := range names {
		d := filepath.Join("..", "..", "..", "shared", "crds", n)
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

// Config returns an admin client configuration of the server, starting it
// on first use. It skips t under -short and without the binaries, and
// fails t when the server did not start.
func (s *Server) Config(t testing.TB) *rest.Config {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: needs a real API server (envtest), skipped with -short")
	}
	s.once.Do(s.start)
	if s.skip != "" {
		t.Skip(s.skip)
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return rest.CopyConfig(s.cfg)
}

func (s *Server) start() {
	dir, why := assets.Available()
	if why != "" {
		s.skip = "integration test: " + why
		return
	}
	no := false
	env := &envtest.Environment{
		BinaryAssetsDirectory:    dir,
		CRDDirectoryPaths:        s.crdDirs,
		ErrorIfCRDPathMissing:    true,
		UseExistingCluster:       &no,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	start := time.Now()
	cfg, err := env.Start()
	if err != nil {
		s.err = fmt.Errorf("start envtest with the binaries in %s: %w", dir, err)
		return
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "apitest: API server with CRDs from [%s] up in %s\n", strings.Join(s.crdDirs, ", "), time.Since(start).Round(time.Millisecond))
	}
	cfg.WarningHandler = rest.NoWarnings{} // deprecated versions in reference CRDs
	s.env, s.cfg = env, cfg
}

// Stop stops the server if it was started; call it from TestMain.
func (s *Server) Stop() {
	if s.env == nil {
		return
	}
	if err := s.env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "apitest: stop envtest: %v\n", err)
	}
}
