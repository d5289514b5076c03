package apitest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster/local"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// The test binary is the wrapper that gives the servers their parent-death
// signal: when it is run as one, it becomes the server here, before the
// testing package reads its arguments.
func init() { proc.RunWrapper() }

// Server is an API server for one test binary.
type Server struct {
	crdDirs []string

	once sync.Once
	reg  *proc.Registry
	srv  *local.Server
	cfg  *rest.Config
	skip string
	err  error
}

// New describes a server that installs the CRDs in crdDirs; it starts on
// the first call of Config.
func New(crdDirs ...string) *Server { return &Server{crdDirs: crdDirs} }

// SharedCRDs returns the reference CRD folders shared/crds/<name> beside
// the repository root, for the names that exist there (shared/ is absent in
// a clone elsewhere). The root is the nearest folder above the working
// directory (the test's package) holding go.mod, so a package finds them at
// any depth.
func SharedCRDs(names ...string) []string {
	root := moduleRoot()
	if root == "" {
		return nil
	}
	var out []string
	for _, n := range names {
		d := filepath.Join(root, "..", "shared", "crds", n)
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

// moduleRoot is the nearest folder at or above the working directory that
// holds a go.mod, or "" when there is none.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
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
	// envtest logs through controller-runtime; unset, that logger prints a
	// "SetLogger was never called" warning with a stack once a test binary
	// is 30 s old (kbook's main does the same, issue 7 defect 5).
	ctrllog.SetLogger(logr.Discard())
	dir, why := binaries.Available()
	if why != "" {
		s.skip = "integration test: " + why
		return
	}
	reg, err := openRegistry()
	if err != nil {
		s.err = err
		return
	}
	start := time.Now()
	srv, err := local.Start(dir, reg)
	if err != nil {
		_, _ = reg.Close()
		s.err = fmt.Errorf("start the API server with the binaries in %s: %w", dir, err)
		return
	}
	s.reg, s.srv = reg, srv
	cfg := srv.Config()
	if len(s.crdDirs) > 0 {
		if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: s.crdDirs, ErrorIfPathMissing: true, MaxTime: 2 * time.Minute}); err != nil {
			s.err = fmt.Errorf("install the CRDs in [%s]: %w", strings.Join(s.crdDirs, ", "), err)
			return
		}
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "apitest: API server with CRDs from [%s] up in %s\n", strings.Join(s.crdDirs, ", "), time.Since(start).Round(time.Millisecond))
	}
	cfg.WarningHandler = rest.NoWarnings{} // deprecated versions in reference CRDs
	s.cfg = cfg
}

// Stop stops the server if it was started; call it from TestMain.
func (s *Server) Stop() {
	if s.srv != nil {
		if err := s.srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "apitest: %v\n", err)
		}
	}
	if s.reg != nil {
		if _, err := s.reg.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "apitest: %v\n", err)
		}
	}
}

// openRegistry reaps what test binaries killed before left in kbook's
// cache (servers, etcd data, keys) and opens this binary's registry there.
func openRegistry() (*proc.Registry, error) {
	root := filepath.Join(cache.DefaultDir(), "procs")
	if _, err := proc.Sweep(root); err != nil {
		fmt.Fprintf(os.Stderr, "apitest: %v\n", err)
	}
	reg, err := proc.Open(root)
	if err != nil {
		return nil, fmt.Errorf("apitest: %w", err)
	}
	return reg, nil
}

var shared struct {
	once sync.Once
	reg  *proc.Registry
	err  error
}

// Procs is the test binary's registry for the servers and plane processes
// a test starts itself (cluster.Options.Procs, local.Start): a test binary
// killed by go test's timeout then leaves nothing the next binary does not
// reap, and the servers die with it (the binary wraps them; importing
// apitest makes it the wrapper). It fails t when the cache is unwritable;
// call CloseProcs from TestMain.
func Procs(t testing.TB) *proc.Registry {
	t.Helper()
	shared.once.Do(func() { shared.reg, shared.err = openRegistry() })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.reg
}

// CloseProcs stops what Procs' registry still records and removes it.
func CloseProcs() {
	if shared.reg != nil {
		if _, err := shared.reg.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "apitest: %v\n", err)
		}
	}
}

// Logger is a log.Logger that sends each line to tb.Logf.
func Logger(tb testing.TB) log.Logger { return tbLogger{tb} }

type tbLogger struct{ tb testing.TB }

func (l tbLogger) Infof(format string, args ...any) { l.tb.Logf(format, args...) }
