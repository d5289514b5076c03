package controllers

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

	"golang.org/x/mod/modfile"

	"github.com/k0rdent/kbook/internal/atomicfile"
	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster/plane/images"
	"github.com/k0rdent/kbook/internal/gobuild"
	"github.com/k0rdent/kbook/internal/log"
)

// The k0rdent management plane's controllers, by binary name.
const (
	KCM                 = "kcm"
	SourceController    = "source-controller"
	HelmController      = "helm-controller"
	CAPICore            = "capi-controller-manager"
	KubeadmBootstrap    = "capi-kubeadm-bootstrap-controller-manager"
	KubeadmControlPlane = "capi-kubeadm-control-plane-controller-manager"
	CAPD                = "capd-controller-manager"

	// Built only for a cluster's nodes (WithInCluster): kcm-regional's
	// cert-manager and Cluster API operator, which the local plane does
	// without (it serves webhooks and installs providers itself).
	CertManagerController = "cert-manager-controller"
	CertManagerWebhook    = "cert-manager-webhook"
	CertManagerCAInjector = "cert-manager-cainjector"
	CAPIOperator          = "cluster-api-operator"
)

// Module is a Go module a k0rdent release is built or read from.
type Module struct {
	// Key names the module within a release: "kcm", "capi", ...
	Key string
	// Path and Version are the module's, as on the module proxy.
	Path, Version string
	// Wrapper is the embedded wrapper module (under k0rdent/<release>/)
	// whose go.mod pins the module and its dependencies. Modules whose
	// controllers share a Kubernetes and controller-runtime line share a
	// wrapper: one build list, so the libraries they have in common are
	// compiled once for all of them (see the wrapper's go.mod).
	Wrapper string
	// Trees are the folders of the module that the plane reads (CRDs,
	// webhook manifests, charts): copied into the cache once.
	Trees []string
}

// Controller is one controller binary of a k0rdent release.
type Controller struct {
	// Name is the binary name.
	Name string
	// Module is the Key of the module it is built from.
	Module string
	// Package is its main package.
	Package string
	// Estimate is shown before a cold build.
	Estimate string
}

// K0rdentRelease is what a k0rdent version decides: the module versions
// of kcm, Flux and Cluster API (kcm's go.mod pins them) and the
// controllers built from them.
type K0rdentRelease struct {
	// Version is the kcm version, e.g. v1.11.4.
	Version string
	// Modules are the modules the release reads and builds, by Key.
	Modules []Module
	// Controllers are the binaries the local plane runs, in the order they
	// are built.
	Controllers []Controller
	// InCluster are the binaries only a real cluster's nodes run (k0rdent
	// inside kind: kcm-regional's cert-manager and Cluster API operator;
	// the local plane serves webhooks and installs providers itself),
	// built after Controllers with WithInCluster.
	InCluster []Controller
}

// Module returns the module with the given key.
func (r *K0rdentRelease) Module(key string) Module {
	for _, m := range r.Modules {
		if m.Key == key {
			return m
		}
	}
	return Module{}
}

// fluxTrees are a Flux controller's kustomize bases: its CRDs for the
// local plane, the rest to install it into a real cluster (kcminstall).
var fluxTrees = []string{"config/crd", "config/default", "config/manager", "config/rbac"}

// DefaultK0rdentVersion is the k0rdent release `--k0rdent` means without a
// version.
const DefaultK0rdentVersion = "v1.11.4"

// k0rdentReleases are the releases kbook has pins for. Each module's
// version must be the one kcm's go.mod requires (for Flux: the controller
// release whose api module kcm requires); a test checks that against the
// embedded go.mod files. To add a release, see the package doc.
var k0rdentReleases = []K0rdentRelease{{
	Version: "v1.11.4",
	Modules: []Module{
		{Key: "kcm", Path: "github.com/K0rdent/kcm", Version: "v1.11.4", Wrapper: "kcm",
			Trees: []string{"templates/provider", "templates/cluster"}},
		{Key: "sveltos-addon", Path: "github.com/projectsveltos/addon-controller", Version: "v1.12.0", Wrapper: "kcm",
			Trees: []string{"config/crd/bases"}},
		{Key: "sveltos-lib", Path: "github.com/projectsveltos/libsveltos", Version: "v1.12.0", Wrapper: "kcm",
			Trees: []string{"config/crd/bases"}},
		{Key: "flux-source", Path: "github.com/fluxcd/source-controller", Version: "v1.9.3", Wrapper: "kcm",
			Trees: fluxTrees},
		{Key: "flux-helm", Path: "github.com/fluxcd/helm-controller", Version: "v1.6.2", Wrapper: "kcm",
			Trees: fluxTrees},
		// config and metadata.yaml whole: the local plane reads the CRDs
		// and webhooks, k0rdent inside kind the release's components
		// (kustomize build config/default) for the Cluster API operator.
		{Key: "capi", Path: "sigs.k8s.io/cluster-api", Version: "v1.13.4", Wrapper: "capi",
			Trees: []string{"config", "metadata.yaml",
				"bootstrap/kubeadm/config", "controlplane/kubeadm/config"}},
		{Key: "capd", Path: "sigs.k8s.io/cluster-api/test", Version: "v1.13.4", Wrapper: "capi",
			Trees: []string{"infrastructure/docker/config"}},
		// kcm-regional's subcharts, for k0rdent inside kind: cert-manager's
		// chart sources and CRDs, the operator's chart and kustomize bases.
		{Key: "cert-manager", Path: "github.com/cert-manager/cert-manager", Version: "v1.11.5", Wrapper: "certmanager",
			Trees: []string{"deploy/charts/cert-manager", "deploy/crds"}},
		{Key: "capi-operator", Path: "sigs.k8s.io/cluster-api-operator", Version: "v0.28.0", Wrapper: "capioperator",
			Trees: []string{"hack/charts/cluster-api-operator", "config"}},
	},
	Controllers: []Controller{
		{KCM, "kcm", "github.com/K0rdent/kcm/cmd", "~5 min on 2 cores"},
		{SourceController, "flux-source", "github.com/fluxcd/source-controller", "~3 min on 2 cores, reusing kcm's packages"},
		{HelmController, "flux-helm", "github.com/fluxcd/helm-controller", "under a minute, reusing kcm's and source-controller's packages"},
		{CAPICore, "capi", "sigs.k8s.io/cluster-api", "~4 min on 2 cores"},
		{KubeadmBootstrap, "capi", "sigs.k8s.io/cluster-api/bootstrap/kubeadm", "under a minute, reusing Cluster API core's packages"},
		{KubeadmControlPlane, "capi", "sigs.k8s.io/cluster-api/controlplane/kubeadm", "under a minute, reusing Cluster API core's packages"},
		{CAPD, "capd", "sigs.k8s.io/cluster-api/test/infrastructure/docker", "~1 min on 2 cores, reusing Cluster API's packages"},
	},
	InCluster: []Controller{
		{CertManagerController, "cert-manager", "github.com/cert-manager/cert-manager/cmd/controller", "~4 min on 2 cores"},
		{CertManagerWebhook, "cert-manager", "github.com/cert-manager/cert-manager/cmd/webhook", "under a minute, reusing the controller's packages"},
		{CertManagerCAInjector, "cert-manager", "github.com/cert-manager/cert-manager/cmd/cainjector", "under a minute, reusing the controller's packages"},
		{CAPIOperator, "capi-operator", "sigs.k8s.io/cluster-api-operator/cmd", "~3 min on 2 cores"},
	},
}}

// K0rdentVersions lists the k0rdent versions kbook can run.
func K0rdentVersions() []string {
	var out []string
	for _, r := range k0rdentReleases {
		out = append(out, r.Version)
	}
	return out
}

// K0rdent returns the release of a k0rdent version ("" means
// DefaultK0rdentVersion).
func K0rdent(version string) (*K0rdentRelease, error) {
	if version == "" {
		version = DefaultK0rdentVersion
	}
	if !strings.HasPrefix(version, "v") {
		version = "v" + version
	}
	for i := range k0rdentReleases {
		if k0rdentReleases[i].Version == version {
			r := k0rdentReleases[i]
			return &r, nil
		}
	}
	return nil, fmt.Errorf("k0rdent %s: kbook has no pins for it (known: %s)", version, strings.Join(K0rdentVersions(), ", "))
}

// K0rdentPaths are the parts of a release's cache directory.
type K0rdentPaths struct {
	// Dir is the release's cache directory.
	Dir string
	// Bin holds the controller binaries (see the Controller names).
	Bin string
	// Modules holds, per module Key, the folders listed in Module.Trees,
	// as the module ships them.
	Modules string
}

// ModuleDir is where the trees of the module with key live.
func (p K0rdentPaths) ModuleDir(key string) string { return filepath.Join(p.Modules, key) }

// Binary is the path of a controller binary.
func (p K0rdentPaths) Binary(name string) string { return filepath.Join(p.Bin, name) }

const (
	sourcesStamp = ".kbook-sources"
	binStamp     = ".kbook-complete"
)

// K0rdentOption configures K0rdentDir.
type K0rdentOption func(*k0rdentConfig)

type k0rdentConfig struct {
	cacheRoot string
	log       log.Logger
	apiOnly   bool
	inCluster bool
	source    assetsfrom.Source
	images    images.Options // how FromDownload and FromAuto pull
}

// APIOnly says only the module trees are wanted (CRDs, webhooks, charts):
// no controller is built.
func APIOnly(on bool) K0rdentOption { return func(c *k0rdentConfig) { c.apiOnly = on } }

// WithInCluster says the release's InCluster controllers are wanted too
// (k0rdent installed into a kind cluster).
func WithInCluster(on bool) K0rdentOption { return func(c *k0rdentConfig) { c.inCluster = on } }

// wanted are the controllers this configuration builds, in build order.
func (c *k0rdentConfig) wanted(r *K0rdentRelease) []Controller {
	if !c.inCluster {
		return r.Controllers
	}
	return append(slices.Clip(r.Controllers), r.InCluster...)
}

// K0rdentCacheDir sets the cache root (default cache.DefaultDir()).
func K0rdentCacheDir(root string) K0rdentOption {
	return func(c *k0rdentConfig) { c.cacheRoot = root }
}

// K0rdentLogger sends progress to l.
func K0rdentLogger(l log.Logger) K0rdentOption {
	return func(c *k0rdentConfig) {
		if l != nil {
			c.log = l
		}
	}
}

// K0rdentPathsFor returns where a release lives in the cache, whether or
// not it is there yet.
func K0rdentPathsFor(r *K0rdentRelease, opts ...K0rdentOption) (K0rdentPaths, error) {
	c := newK0rdentConfig(opts)
	root, err := filepath.Abs(c.cacheRoot)
	if err != nil {
		return K0rdentPaths{}, fmt.Errorf("k0rdent assets: cache dir: %w", err)
	}
	dir := filepath.Join(root, "k0rdent", fmt.Sprintf("%s-%s-%s", r.Version, runtime.GOOS, runtime.GOARCH))
	return K0rdentPaths{Dir: dir, Bin: filepath.Join(dir, "bin"), Modules: filepath.Join(dir, "modules")}, nil
}

func newK0rdentConfig(opts []K0rdentOption) *k0rdentConfig {
	c := &k0rdentConfig{log: log.NoopLogger{}}
	for _, o := range opts {
		o(c)
	}
	if c.cacheRoot == "" {
		c.cacheRoot = cache.DefaultDir()
	}
	return c
}

// K0rdentAvailable reports whether a release is in the cache already (its
// binaries too unless apiOnly), never building; why says what is missing.
func K0rdentAvailable(r *K0rdentRelease, apiOnly bool, opts ...K0rdentOption) (K0rdentPaths, string) {
	p, err := K0rdentPathsFor(r, opts...)
	if err != nil {
		return p, err.Error()
	}
	if !sourcesFetched(r, p) {
		return p, fmt.Sprintf("k0rdent %s sources are not in %s yet (kbook cluster assets --k0rdent %s fetches them)", r.Version, p.Dir, r.Version)
	}
	if !apiOnly && len(staleBinaries(r, newK0rdentConfig(opts).wanted(r), p)) > 0 {
		return p, fmt.Sprintf("k0rdent %s controllers are not built in %s yet (kbook cluster assets --k0rdent %s builds them once, about 15 minutes on 2 cores)", r.Version, p.Dir, r.Version)
	}
	return p, ""
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// K0rdentAwait is K0rdentAvailable once no kbook process is preparing the
// release in the cache any more: while one holds the release's lock (a
// `kbook cluster assets --k0rdent` building the controllers), it waits for
// it, saying so through the K0rdentLogger. It never builds. make test builds
// the controllers beside go test, whose tests that need them wait here.
func K0rdentAwait(ctx context.Context, r *K0rdentRelease, apiOnly bool, opts ...K0rdentOption) (K0rdentPaths, string) {
	p, why := K0rdentAvailable(r, apiOnly, opts...)
	if why == "" {
		return p, ""
	}
	if _, err := os.Stat(filepath.Dir(p.Dir)); err != nil {
		return p, why // no cache for any release: nobody is preparing one
	}
	c := newK0rdentConfig(opts)
	// What is wanted may be ready before the holder is done (a build of
	// the plane's controllers then the in-cluster ones: make test's):
	// stop waiting as soon as it is.
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-lctx.Done():
				return
			case <-t.C:
				if _, why := K0rdentAvailable(r, apiOnly, opts...); why == "" {
					cancel(errAvailable)
					return
				}
			}
		}
	}()
	lk, err := gobuild.Lock(lctx, p.Dir+".lock", preparing(r, p), func(msg string) { c.log.Infof("%s", msg) })
	if errors.Is(err, errAvailable) {
		return p, ""
	}
	if err != nil {
		return p, fmt.Sprintf("%s (waiting for its lock: %v)", why, err)
	}
	lk.Unlock()
	return K0rdentAvailable(r, apiOnly, opts...)
}

var errAvailable = errors.New("available")

// preparing is what the holder of a release's lock does, as the processes
// waiting for it say.
func preparing(r *K0rdentRelease, p K0rdentPaths) string {
	return "preparing k0rdent " + r.Version + " in " + p.Dir
}

// K0rdentDir returns the release's cache directory, first fetching the
// modules' trees (seconds) and building the controllers (about 15 minutes
// on two cores, once; not with APIOnly) if they are not there. Concurrent
// callers wait for one build; a cancelled build leaves the binaries built
// so far, each complete, and the next call builds the rest.
func K0rdentDir(ctx context.Context, r *K0rdentRelease, opts ...K0rdentOption) (K0rdentPaths, error) {
	c := newK0rdentConfig(opts)
	p, err := K0rdentPathsFor(r, opts...)
	if err != nil {
		return p, err
	}
	if _, why := K0rdentAvailable(r, c.apiOnly, opts...); why == "" {
		return p, nil
	}
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return p, fmt.Errorf("k0rdent assets: %w", err)
	}
	lk, err := gobuild.Lock(ctx, p.Dir+".lock", preparing(r, p), func(msg string) { c.log.Infof("%s", msg) })
	if err != nil {
		return p, fmt.Errorf("k0rdent assets: lock %s: %w", p.Dir, err)
	}
	defer lk.Unlock()
	// Processes waiting for the lock read what this one is building.
	c.log = lk.Logger(c.log)

	goBin, err := exec.LookPath("go")
	if err != nil {
		return p, fmt.Errorf("k0rdent assets: kbook builds the k0rdent controllers from their Go modules, but go is not on PATH: install Go (https://go.dev/doc/install)")
	}
	work, err := os.MkdirTemp(filepath.Dir(p.Dir), ".tmp-"+filepath.Base(p.Dir)+"-")
	if err != nil {
		return p, fmt.Errorf("k0rdent assets: %w", err)
	}
	defer os.RemoveAll(work)
	wrappers := filepath.Join(work, "src")
	if err := gobuild.ExtractTxt(k0rdentFS, "k0rdent/"+r.Version, wrappers); err != nil {
		return p, fmt.Errorf("k0rdent assets: extract %s: %w", r.Version, err)
	}

	if !sourcesFetched(r, p) {
		if err := c.fetchTrees(ctx, goBin, r, wrappers, work, p); err != nil {
			return p, fmt.Errorf("k0rdent assets: %w", err)
		}
	}
	if c.apiOnly {
		return p, nil
	}
	ctls := c.wanted(r)
	stale := staleBinaries(r, ctls, p)
	if len(stale) == 0 {
		return p, nil
	}
	if isFile(filepath.Join(p.Dir, binStamp)) {
		// Built before with other flags: rebuild those (the rest of the
		// build is cached), never taking them for an interrupted run's.
		// (Those never built - in-cluster ones on their first
		// WithInCluster call - are just built.)
		var rebuild []string
		for _, ctl := range stale {
			if isFile(p.Binary(ctl)) {
				rebuild = append(rebuild, ctl)
				_ = os.Remove(p.Binary(ctl))
			}
		}
		if len(rebuild) > 0 {
			c.log.Infof("rebuilding %s: built with other flags than kbook now uses", strings.Join(rebuild, ", "))
		}
	}
	if err := os.MkdirAll(p.Bin, 0o755); err != nil {
		return p, fmt.Errorf("k0rdent assets: %w", err)
	}
	start := time.Now()
	var built []string
	pl := c.newPuller(r, p)
	for i, ctl := range ctls {
		target := p.Binary(ctl.Name)
		if gobuild.CheckBinary(target) == "" {
			continue // built by an earlier, interrupted run
		}
		t0 := time.Now()
		pulled, err := pl.pull(ctx, ctl, target)
		if err != nil {
			return p, fmt.Errorf("k0rdent assets: %w", err)
		}
		if pulled {
			built = append(built, fmt.Sprintf("%s pulled %s", ctl.Name, time.Since(t0).Round(time.Second)))
			continue
		}
		c.log.Infof("building %s %s [%d/%d] (first run only, %s)…", ctl.Name, r.Module(ctl.Module).Version, i+1, len(ctls), ctl.Estimate)
		t0 = time.Now()
		stop := gobuild.Still(c.log, ctl.Name)
		err = c.buildController(ctx, goBin, r, ctl, filepath.Join(wrappers, r.Module(ctl.Module).Wrapper), target)
		stop()
		if err != nil {
			return p, fmt.Errorf("k0rdent assets: %w", err)
		}
		took := time.Since(t0).Round(time.Second)
		built = append(built, fmt.Sprintf("%s %s", ctl.Name, took))
		c.log.Infof("built %s in %s", ctl.Name, took)
	}
	if err := pl.save(p); err != nil {
		return p, fmt.Errorf("k0rdent assets: %w", err)
	}
	stamp := fmt.Sprintf("k0rdent %s\nplatform %s/%s\nbuilt %s (%s)\n%s\n%s", r.Version, runtime.GOOS, runtime.GOARCH,
		time.Now().UTC().Format(time.RFC3339), time.Since(start).Round(time.Second), strings.Join(built, "\n"), ldflagsLines(r, ctls, p))
	if err := atomicfile.Write(filepath.Join(p.Dir, binStamp), []byte(stamp)); err != nil {
		return p, fmt.Errorf("k0rdent assets: %w", err)
	}
	return p, nil
}

// fetchTrees downloads the release's modules through the module proxy (as
// the wrappers' go.sum pins them) and copies their trees into the cache.
func (c *k0rdentConfig) fetchTrees(ctx context.Context, goBin string, r *K0rdentRelease, wrappers, work string, p K0rdentPaths) error {
	c.log.Infof("fetching the k0rdent %s modules (kcm, Flux, Cluster API)…", r.Version)
	start := time.Now()
	staged := filepath.Join(work, "modules")
	for _, m := range r.Modules {
		dir, err := moduleDir(ctx, goBin, filepath.Join(wrappers, m.Wrapper), m.Path+"@"+m.Version)
		if err != nil {
			return err
		}
		for _, tree := range m.Trees {
			if err := copyTree(filepath.Join(dir, filepath.FromSlash(tree)), filepath.Join(staged, m.Key, filepath.FromSlash(tree))); err != nil {
				return fmt.Errorf("%s@%s: %w", m.Path, m.Version, err)
			}
		}
	}
	if err := os.RemoveAll(p.Modules); err != nil {
		return err
	}
	if err := os.Rename(staged, p.Modules); err != nil {
		return err
	}
	c.log.Infof("fetched the k0rdent %s modules in %s", r.Version, time.Since(start).Round(time.Millisecond))
	return atomicfile.Write(filepath.Join(p.Dir, sourcesStamp), sourcesStampContent(r))
}

// sourcesStampContent names each module and the trees copied from it: a
// release whose list of trees grew is fetched again (its binaries are
// kept).
func sourcesStampContent(r *K0rdentRelease) []byte {
	var lines []string
	for _, m := range r.Modules {
		lines = append(lines, m.Path+" "+m.Version+" "+strings.Join(m.Trees, ","))
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// sourcesFetched reports whether the release's trees, as listed now, are
// in the cache.
func sourcesFetched(r *K0rdentRelease, p K0rdentPaths) bool {
	data, err := os.ReadFile(filepath.Join(p.Dir, sourcesStamp))
	return err == nil && bytes.Equal(data, sourcesStampContent(r))
}

// moduleDir runs go mod download in a wrapper module and returns where the
// module cache holds the module.
func moduleDir(ctx context.Context, goBin, wrapper, mod string) (string, error) {
	cmd := exec.CommandContext(ctx, goBin, "mod", "download", "-json", mod)
	cmd.Dir = wrapper
	cmd.Env = gobuild.Env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var res struct{ Dir, Error string }
	_ = json.Unmarshal(out.Bytes(), &res)
	if res.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", mod, res.Error)
	}
	if err != nil || res.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %v\n%s", mod, err, gobuild.Tail(errb.String(), 2000))
	}
	return res.Dir, nil
}

// buildController runs go build for one controller in its wrapper module.
func (c *k0rdentConfig) buildController(ctx context.Context, goBin string, r *K0rdentRelease, ctl Controller, wrapper, target string) error {
	tmp := target + ".tmp"
	args := []string{"build", "-ldflags", controllerLdflags(r, ctl), "-o", tmp, ctl.Package}
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = wrapper
	cmd.Env = gobuild.Env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	gobuild.KillGroupOnCancel(cmd)
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("build %s: %w", ctl.Name, context.Cause(ctx))
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("build %s: go build %s: %w\n%s", ctl.Name, ctl.Package, err, gobuild.Tail(out.String(), 4000))
	}
	return os.Rename(tmp, target)
}

// ldflagsLines record, in the binaries' stamp, the flags each controller
// of ctls was built with, and keep the lines of the release's other
// controllers whose binaries are there (built by a run that wanted them).
func ldflagsLines(r *K0rdentRelease, ctls []Controller, p K0rdentPaths) string {
	var b strings.Builder
	built := map[string]bool{}
	for _, ctl := range ctls {
		built[ctl.Name] = true
		fmt.Fprintf(&b, "ldflags %s\n", ldflagsKey(r, ctl))
	}
	old, _ := os.ReadFile(filepath.Join(p.Dir, binStamp))
	for _, ctl := range append(slices.Clip(r.Controllers), r.InCluster...) {
		line := fmt.Sprintf("ldflags %s\n", ldflagsKey(r, ctl))
		if !built[ctl.Name] && strings.Contains(string(old), line) && isFile(p.Binary(ctl.Name)) {
			b.WriteString(line)
		}
	}
	return b.String()
}

func ldflagsKey(r *K0rdentRelease, ctl Controller) string {
	return ctl.Name + " " + controllerLdflags(r, ctl)
}

// staleBinaries are the controllers of ctls not built yet, or built with
// other flags than controllerLdflags gives now (all of them without a
// stamp).
func staleBinaries(r *K0rdentRelease, ctls []Controller, p K0rdentPaths) []string {
	data, err := os.ReadFile(filepath.Join(p.Dir, binStamp))
	var stale []string
	for _, ctl := range ctls {
		if err != nil || !strings.Contains(string(data), fmt.Sprintf("ldflags %s\n", ldflagsKey(r, ctl))) {
			stale = append(stale, ctl.Name)
		}
	}
	return stale
}

// controllerLdflags strips debug information and stamps the version the
// way each project's release build does.
func controllerLdflags(r *K0rdentRelease, ctl Controller) string {
	m := r.Module(ctl.Module)
	flags := []string{"-s", "-w"}
	switch ctl.Module {
	case "kcm":
		// kcm's Makefile stamps VERSION without its v (patsubst v%,%):
		// kcm looks its Release and templates chart up by it.
		flags = append(flags, "-X", "github.com/K0rdent/kcm/internal/build.Version="+strings.TrimPrefix(m.Version, "v"),
			"-X", "github.com/K0rdent/kcm/internal/build.Name=kcm")
	case "capi", "capd":
		flags = append(flags, "-X", "sigs.k8s.io/cluster-api/version.gitVersion="+r.Module("capi").Version)
	case "cert-manager":
		flags = append(flags, "-X", "github.com/cert-manager/cert-manager/pkg/util.AppVersion="+m.Version)
	case "capi-operator":
		flags = append(flags, "-X", "sigs.k8s.io/cluster-api-operator/version.gitVersion="+m.Version)
	}
	return strings.Join(flags, " ")
}

// k0rdentFS holds one wrapper module per module group and release:
// k0rdent/<release>/<wrapper>/go.mod.txt and go.sum.txt (see the package
// doc for the suffix).
//
//go:embed k0rdent
var k0rdentFS embed.FS

// copyTree copies the regular files below src to dst (module cache files
// are read-only; the copies are not).
func copyTree(src, dst string) error {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("tree %s: %w", filepath.Base(src), errors.Unwrap(err))
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, in); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

// wrapperRequires reads the requirements of an embedded wrapper go.mod:
// module path -> version.
func wrapperRequires(release, wrapper string) (map[string]string, error) {
	name := path.Join("k0rdent", release, wrapper, "go.mod.txt")
	data, err := k0rdentFS.ReadFile(name)
	if err != nil {
		return nil, err
	}
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range f.Require {
		out[r.Mod.Path] = r.Mod.Version
	}
	for _, r := range f.Replace {
		if r.New.Version != "" && (r.Old.Version == "" || r.Old.Version == out[r.Old.Path]) {
			out[r.Old.Path] = r.New.Version
		}
	}
	return out, nil
}

// sortedKeys is for stable messages.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return slices.Clip(keys)
}
