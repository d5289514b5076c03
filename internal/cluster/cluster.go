package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/plural"

	"github.com/k0rdent/kbook/internal/proc"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Backend names.
const (
	Local      = "local"
	Kind       = "kind"
	Kubeconfig = "kubeconfig"
)

// Backends lists the backend names in the order they are documented.
var Backends = []string{Local, Kind, Kubeconfig}

// Cluster is a running Kubernetes API server.
type Cluster interface {
	// Name is the cluster's name (the kind cluster name, the kubeconfig
	// context, "kbook" for local).
	Name() string
	// Backend is one of Local, Kind, Kubeconfig.
	Backend() string
	// RESTConfig is an admin client configuration.
	RESTConfig() *rest.Config
	// Kubeconfig is an admin kubeconfig for the cluster.
	Kubeconfig() ([]byte, error)
	// Stop releases what kbook started: the local API server, a kind
	// cluster kbook created (unless kept). It never touches an existing
	// cluster.
	Stop(ctx context.Context) error
}

// Options select and configure a backend.
type Options struct {
	// Backend is Local, Kind or Kubeconfig.
	Backend string
	// Name is the kind cluster name (default "kbook").
	Name string
	// CRDs are files or directories of CustomResourceDefinitions to
	// install once the cluster is up.
	CRDs []string
	// AssetsDir holds kube-apiserver and etcd for the local backend; empty:
	// KUBEBUILDER_ASSETS or the kbook cache (see package binaries).
	AssetsDir string
	// AssetsFrom says where the local backend takes kube-apiserver and
	// etcd from when neither AssetsDir nor KUBEBUILDER_ASSETS names them:
	// the controllers too, with K0rdent (zero: assetsfrom.Auto).
	AssetsFrom assetsfrom.Source
	// KindImage is the kind node image: "auto" (or empty), "build" or an
	// image reference (see KindNodeImage).
	KindImage string
	// KindWorkers is how many worker nodes a kind cluster gets beside its
	// control plane.
	KindWorkers int
	// CacheDir is kbook's cache root, where a node image kbook builds is
	// recorded (default: cache.DefaultDir()).
	CacheDir string
	// KeepCluster leaves a kind cluster kbook created in place.
	KeepCluster bool
	// Kubeconfig and Context select an existing cluster; empty Kubeconfig
	// follows KUBECONFIG and ~/.kube/config like kubectl.
	Kubeconfig, Context string
	// K0rdent is a k0rdent version whose management plane the local
	// backend runs: its CRDs and, unless K0rdentAPIOnly, kcm, Flux and
	// Cluster API controllers (see package plane). Empty: none.
	K0rdent string
	// K0rdentAPIOnly serves the k0rdent release's APIs without controllers.
	K0rdentAPIOnly bool
	// NoSnapshot starts the local API server empty and installs the CRDs
	// every time, instead of starting from the etcd data saved the first
	// time the same CRDs were installed (see SnapshotDir).
	NoSnapshot bool
	// SnapshotDir keeps those snapshots (default: <kbook cache>/snapshots).
	SnapshotDir string
	// Logger receives progress.
	Logger log.Logger
	// Procs records the processes and temporary directories the local
	// backend starts, so that they die with kbook and a later run reaps
	// what a kill -9 left behind (see package proc); nil: untracked, and
	// the directories go to os.TempDir().
	Procs *proc.Registry
}

func (o *Options) logger() log.Logger {
	if o.Logger == nil {
		return log.NoopLogger{}
	}
	return o.Logger
}

// Log is the options' Logger, or one that drops everything.
func (o *Options) Log() log.Logger { return o.logger() }

// Up starts (or connects to) the cluster the options describe and
// installs the CRDs.
func Up(ctx context.Context, o Options) (Cluster, error) {
	var (
		c   Cluster
		err error
	)
	switch o.Backend {
	case Local:
		c, err = upLocal(ctx, o)
	case Kind:
		c, err = upKind(ctx, o)
	case Kubeconfig:
		c, err = upKubeconfig(ctx, o)
	default:
		return nil, fmt.Errorf("unknown cluster backend %q (want %s)", o.Backend, strings.Join(Backends, ", "))
	}
	if err != nil {
		return nil, err
	}
	if o.Backend != Local && len(o.CRDs) > 0 { // the local backend installs its own
		if err := InstallCRDs(ctx, c.RESTConfig(), o.CRDs, o.logger()); err != nil {
			_ = c.Stop(context.WithoutCancel(ctx))
			return nil, err
		}
	}
	return c, nil
}

// InstallCRDs installs the CustomResourceDefinitions found in paths (files
// or directories of YAML) and waits until they are served; lg (nil: none)
// hears how long it took.
func InstallCRDs(ctx context.Context, cfg *rest.Config, paths []string, lg log.Logger) error {
	if len(paths) == 0 {
		return nil
	}
	if err := CheckCRDPaths(paths); err != nil {
		return err
	}
	if lg == nil {
		lg = log.NoopLogger{}
	}
	start := time.Now()
	crds, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: paths, ErrorIfPathMissing: true, MaxTime: 2 * time.Minute})
	if err != nil {
		return fmt.Errorf("install CRDs from %s: %w", strings.Join(paths, ", "), err)
	}
	lg.Infof("installed %s from %s in %s", plural.Count(len(crds), "CRD"), strings.Join(paths, ", "), time.Since(start).Round(time.Millisecond))
	return nil
}

// CheckCRDPaths reports missing CRD paths with their names.
func CheckCRDPaths(paths []string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("CRDs: %s: %w", p, errors.Unwrap(err))
		}
	}
	return nil
}

// CRDFiles lists the YAML and JSON files below the given CRD paths, sorted,
// for cache keys.
func CRDFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		err := filepath.WalkDir(p, func(f string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch strings.ToLower(filepath.Ext(f)) {
			case ".yaml", ".yml", ".json":
				if !d.IsDir() {
					out = append(out, f)
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("CRDs: %w", err)
		}
	}
	sort.Strings(out)
	return out, nil
}

// FastConfig returns a copy of cfg for kbook's own bulk reads: client-go's
// default client-side rate limit (5 requests a second) would make a
// snapshot of a few dozen lists take seconds, and API deprecation warnings
// met while listing every resource are not the user's business.
func FastConfig(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS < 50 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	cfg.WarningHandler = rest.NoWarnings{}
	return cfg
}

// BinDir is the directory of the local backend's binaries (kubectl among
// them where none is on PATH), "" for other backends.
func BinDir(c Cluster) string {
	if lc, ok := c.(*localCluster); ok {
		return lc.dir
	}
	return ""
}

// ServerVersion asks the cluster for its Kubernetes version.
func ServerVersion(c Cluster) (string, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(c.RESTConfig())
	if err != nil {
		return "", err
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return "", err
	}
	return v.GitVersion, nil
}
