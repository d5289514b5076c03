package binaries

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"
	"github.com/k0rdent/kbook/internal/gobuild"
	"github.com/k0rdent/kbook/internal/log"
)

// The pinned versions; they must agree with src/go.mod.txt (a test checks).
const (
	// KubernetesVersion is the k8s.io/kubernetes version kube-apiserver and
	// kubectl are built from.
	KubernetesVersion = "v1.34.12"
	// EtcdVersion is the go.etcd.io/etcd/server/v3 version etcd is built from.
	EtcdVersion = "v3.6.16"
)

// EnvAssets names the environment variable envtest reads the binaries'
// directory from. When set, Dir returns it instead of building.
const EnvAssets = "KUBEBUILDER_ASSETS"

// The binaries' file names, as envtest expects them.
const (
	KubeAPIServer = "kube-apiserver"
	Etcd          = "etcd"
	Kubectl       = "kubectl"
)

// stampName is written into a cache directory after all its binaries are in
// place: a directory without it is never trusted.
const stampName = ".kbook-complete"

// srcFS holds the sources of the kbook.local/envtest-assets module, with a
// .txt suffix on every file name (see the package doc).
//
//go:embed src
var srcFS embed.FS

// Option configures Dir.
type Option func(*config)

type config struct {
	cacheRoot string
	kubectl   *bool // nil: only when no kubectl is on PATH
	log       log.Logger
	source    assetsfrom.Source
	indexURL  string // "": download.IndexURL()
}

// WithCacheDir sets the cache root; the binaries go to
// <root>/envtest/<version dir>/. The default is cache.DefaultDir().
func WithCacheDir(root string) Option {
	return func(c *config) { c.cacheRoot = root }
}

// WithKubectl says whether the directory must hold kubectl too. true: build
// it when missing from the cache (and report it as missing from
// KUBEBUILDER_ASSETS); false: never build it. Without this option kubectl is
// built only when none is on PATH.
func WithKubectl(want bool) Option {
	return func(c *config) { c.kubectl = &want }
}

// WithLogger sends progress (what is being built, how long it took) to l.
func WithLogger(l log.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.log = l
		}
	}
}

func newConfig(opts []Option) *config {
	c := &config{log: log.NoopLogger{}}
	for _, o := range opts {
		o(c)
	}
	if c.cacheRoot == "" {
		c.cacheRoot = cache.DefaultDir()
	}
	return c
}

// wantKubectl reports whether kubectl must be built into the cache dir.
func (c *config) wantKubectl() bool {
	if c.kubectl != nil {
		return *c.kubectl
	}
	_, err := exec.LookPath(Kubectl)
	return err != nil
}

// CacheDir returns the directory Dir builds into for these options, whether
// or not it exists yet.
func CacheDir(opts ...Option) (string, error) {
	return newConfig(opts).cacheDir()
}

func (c *config) cacheDir() (string, error) {
	root, err := filepath.Abs(c.cacheRoot)
	if err != nil {
		return "", fmt.Errorf("envtest assets: cache dir: %w", err)
	}
	name := fmt.Sprintf("k8s-%s-etcd-%s-%s-%s", KubernetesVersion, EtcdVersion, runtime.GOOS, runtime.GOARCH)
	return filepath.Join(root, "envtest", name), nil
}

// Dir returns a directory holding kube-apiserver and etcd (and kubectl when
// wanted, see WithKubectl), ready for KUBEBUILDER_ASSETS.
//
// If KUBEBUILDER_ASSETS is set, Dir checks and returns it. Otherwise the
// source (see WithSource; assetsfrom.Auto unless set) decides: Build returns the cache directory, first
// building the binaries into it with the local Go toolchain if they are not
// all there (4 to 10 minutes on two cores, once); Download returns the
// download store's entry, fetching the released archive if needed
// (seconds); Auto takes what the cache has, else downloads, else builds.
// Concurrent callers, in this process or others, wait for one build or
// download. Cancelling ctx stops it and removes its temporary files.
func Dir(ctx context.Context, opts ...Option) (string, error) {
	c := newConfig(opts)
	if d := os.Getenv(EnvAssets); d != "" {
		return fromEnv(d, c)
	}
	return c.fromSource(ctx)
}

// fromEnv checks the directory named by KUBEBUILDER_ASSETS.
func fromEnv(d string, c *config) (string, error) {
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", fmt.Errorf("%s=%s: %w", EnvAssets, d, err)
	}
	names := []string{KubeAPIServer, Etcd}
	if c.kubectl != nil && *c.kubectl {
		names = append(names, Kubectl)
	}
	var problems []string
	for _, n := range names {
		if p := gobuild.CheckBinary(filepath.Join(abs, n)); p != "" {
			problems = append(problems, n+" ("+p+")")
		}
	}
	if len(problems) > 0 {
		return "", fmt.Errorf("%s=%s lacks %s: point it at a directory holding kube-apiserver and etcd (e.g. from setup-envtest), or unset it to let kbook build them",
			EnvAssets, d, strings.Join(problems, ", "))
	}
	return abs, nil
}

// Available returns the directory of kube-apiserver and etcd if they are
// already there, never building them: KUBEBUILDER_ASSETS when set, else a
// complete cache directory. When they are not, why says what to do. Tests
// use it to skip, with that reason, instead of starting a long build.
func Available(opts ...Option) (dir, why string) {
	c := newConfig(opts)
	if d := os.Getenv(EnvAssets); d != "" {
		if gobuild.CheckBinary(filepath.Join(d, KubeAPIServer)) != "" || gobuild.CheckBinary(filepath.Join(d, Etcd)) != "" {
			return "", fmt.Sprintf("%s=%s lacks kube-apiserver or etcd", EnvAssets, d)
		}
		return d, ""
	}
	d, err := c.cacheDir()
	if err != nil {
		return "", err.Error()
	}
	if !hasCore(d) {
		if dl := c.inCache(false); dl != "" {
			return dl, ""
		}
		return "", fmt.Sprintf("no local API server binaries in %s: set %s, or fetch them once with 'kbook cluster assets' (a download, or a build of 4 to 10 minutes)", d, EnvAssets)
	}
	return d, ""
}

// hasCore reports whether dir holds a stamp, kube-apiserver and etcd.
func hasCore(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, stampName))
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return gobuild.CheckBinary(filepath.Join(dir, KubeAPIServer)) == "" && gobuild.CheckBinary(filepath.Join(dir, Etcd)) == ""
}

// complete reports whether dir can be used as is.
func complete(dir string, kubectl bool) bool {
	return hasCore(dir) && (!kubectl || gobuild.CheckBinary(filepath.Join(dir, Kubectl)) == "")
}

func (c *config) ensureCache(ctx context.Context) (string, error) {
	dir, err := c.cacheDir()
	if err != nil {
		return "", err
	}
	kubectl := c.wantKubectl()
	if complete(dir, kubectl) {
		return dir, nil
	}

	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("envtest assets: %w", err)
	}
	lk, err := gobuild.Lock(ctx, dir+".lock", "building kube-apiserver and etcd into "+dir, func(msg string) { c.log.Infof("%s", msg) })
	if err != nil {
		return "", fmt.Errorf("envtest assets: lock %s: %w", dir, err)
	}
	defer lk.Unlock()
	// Processes waiting for the lock read what this one is building.
	c.log = lk.Logger(c.log)
	// Another process may have built it while we waited.
	if complete(dir, kubectl) {
		return dir, nil
	}

	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("envtest assets: building kube-apiserver and etcd needs the Go toolchain, but go is not on PATH: install Go (https://go.dev/doc/install), or set %s to a directory holding kube-apiserver and etcd (e.g. from setup-envtest)", EnvAssets)
	}

	core := hasCore(dir)
	var names []string
	if !core {
		names = append(names, Etcd, KubeAPIServer)
	}
	if kubectl {
		names = append(names, Kubectl)
	}

	work, err := os.MkdirTemp(parent, ".tmp-"+filepath.Base(dir)+"-")
	if err != nil {
		return "", fmt.Errorf("envtest assets: %w", err)
	}
	defer os.RemoveAll(work)
	srcDir, outDir := filepath.Join(work, "src"), filepath.Join(work, "out")
	if err := extract(srcDir); err != nil {
		return "", fmt.Errorf("envtest assets: extract sources: %w", err)
	}
	if err := os.Mkdir(outDir, 0o755); err != nil {
		return "", fmt.Errorf("envtest assets: %w", err)
	}
	if err := c.build(ctx, goBin, srcDir, outDir, names); err != nil {
		return "", fmt.Errorf("envtest assets: %w", err)
	}

	if core {
		// Only kubectl was missing: a rename of one file is atomic.
		if err := os.Rename(filepath.Join(outDir, Kubectl), filepath.Join(dir, Kubectl)); err != nil {
			return "", fmt.Errorf("envtest assets: install kubectl: %w", err)
		}
		return dir, nil
	}
	// No stamp: whatever is there is a leftover from an interrupted or
	// older build.
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("envtest assets: remove incomplete %s: %w", dir, err)
	}
	if err := os.Rename(outDir, dir); err != nil {
		if complete(dir, kubectl) { // built by a process we could not lock out
			return dir, nil
		}
		return "", fmt.Errorf("envtest assets: install: %w", err)
	}
	if err := writeStamp(dir); err != nil {
		return "", fmt.Errorf("envtest assets: %w", err)
	}
	return dir, nil
}

// extract writes the embedded module to dir with the .txt suffixes removed.
func extract(dir string) error { return gobuild.ExtractTxt(srcFS, "src", dir) }

// estimate says how long building names takes the first time.
func estimate(names []string) string {
	switch {
	case slices.Contains(names, KubeAPIServer):
		return "~5 min on 2 cores"
	case slices.Contains(names, Etcd):
		return "~1 min on 2 cores"
	}
	return "a few min on 2 cores"
}

// version returns the version binary name is built from.
func version(name string) string {
	if name == Etcd {
		return EtcdVersion
	}
	return KubernetesVersion
}

// ldflags strips debug information, as the upstream release builds do, and
// stamps the Kubernetes version the way k8s.io/kubernetes/hack/lib/version.sh
// does (without it kube-apiserver --version says v0.0.0-master); etcd has
// none of the stamped packages.
func ldflags() string {
	flags := []string{"-s", "-w"}
	major, minor := "", ""
	if parts := strings.Split(strings.TrimPrefix(KubernetesVersion, "v"), "."); len(parts) >= 2 {
		major, minor = parts[0], parts[1]
	}
	for _, pkg := range []string{"k8s.io/client-go/pkg/version", "k8s.io/component-base/version"} {
		flags = append(flags,
			"-X", pkg+".gitVersion="+KubernetesVersion,
			"-X", pkg+".gitMajor="+major,
			"-X", pkg+".gitMinor="+minor,
		)
	}
	return strings.Join(flags, " ")
}

// build runs one go build for cmd/<name> of the module in srcDir, for each
// of names, into outDir: one build keeps both cores busy where a binary's
// last packages and its link would leave one idle. The module pins the
// versions kbook's own go.mod has wherever both build a module, and no
// -trimpath: kbook's Kubernetes libraries, compiled already, are about half
// of kube-apiserver's (see gobuild.Env).
func (c *config) build(ctx context.Context, goBin, srcDir, outDir string, names []string) error {
	what := make([]string, len(names))
	for i, n := range names {
		what[i] = n + " " + version(n)
	}
	c.log.Infof("building %s (first run only, %s)…", strings.Join(what, ", "), estimate(names))
	start := time.Now()
	args := []string{"build", "-ldflags", ldflags(), "-o", outDir + string(filepath.Separator)}
	for _, n := range names {
		args = append(args, "./"+path.Join("cmd", n))
	}
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = srcDir
	cmd.Env = gobuild.Env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	gobuild.KillGroupOnCancel(cmd)
	cmd.WaitDelay = 5 * time.Second
	label := strings.Join(names, ", ")
	stop := gobuild.Still(c.log, label)
	err := cmd.Run()
	stop()
	if ctx.Err() != nil {
		return fmt.Errorf("build %s: %w", label, context.Cause(ctx))
	}
	if err != nil {
		return fmt.Errorf("build %s: go build: %w\n%s", label, err, gobuild.Tail(out.String(), 4000))
	}
	c.log.Infof("built %s in %s", label, time.Since(start).Round(time.Second))
	return nil
}

// writeStamp marks dir complete; the stamp records what was built.
func writeStamp(dir string) error {
	content := fmt.Sprintf("kubernetes %s\netcd %s\nplatform %s/%s\nbuilt %s\n",
		KubernetesVersion, EtcdVersion, runtime.GOOS, runtime.GOARCH, time.Now().UTC().Format(time.RFC3339))
	tmp := filepath.Join(dir, stampName+".tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return fmt.Errorf("write stamp: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, stampName)); err != nil {
		return fmt.Errorf("write stamp: %w", err)
	}
	return nil
}
