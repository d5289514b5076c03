package binaries

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"
	"github.com/k0rdent/kbook/internal/cluster/local/download"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/gobuild"
)

// WithSource sets where the binaries come from (default
// assetsfrom.Auto). An unknown value makes Dir fail.
func WithSource(s assetsfrom.Source) Option {
	return func(c *config) { c.source = s }
}

// WithIndexURL sets setup-envtest's index for Download and Auto (default
// download.IndexURL(): $KBOOK_ENVTEST_INDEX, else the controller-tools
// index on GitHub).
func WithIndexURL(u string) Option {
	return func(c *config) { c.indexURL = u }
}

// store is the download store under the cache root.
func (c *config) store() (download.Store, error) {
	root, err := filepath.Abs(c.cacheRoot)
	if err != nil {
		return download.Store{}, fmt.Errorf("envtest assets: cache dir: %w", err)
	}
	return download.Store{Root: filepath.Join(root, "envtest")}, nil
}

// names are the binaries an entry must hold.
func names(kubectl bool) []string {
	n := []string{KubeAPIServer, Etcd}
	if kubectl {
		n = append(n, Kubectl)
	}
	return n
}

// downloaded returns the store entry of the pinned Kubernetes minor,
// fetching it when the store lacks it.
func (c *config) downloaded(ctx context.Context, kubectl bool) (string, error) {
	st, err := c.store()
	if err != nil {
		return "", err
	}
	want := names(kubectl)
	if d := st.Path(KubernetesVersion, runtime.GOOS, runtime.GOARCH); download.Complete(d, want...) {
		return d, nil
	}
	cl := &download.Client{IndexURL: c.indexURL, Log: c.log}
	ix, err := cl.Index(ctx)
	if err != nil {
		if d := st.Newest(KubernetesVersion, runtime.GOOS, runtime.GOARCH, want...); d != "" && ctx.Err() == nil {
			c.log.Infof("%v: using %s, downloaded before", err, d)
			return d, nil
		}
		return "", fmt.Errorf("envtest assets: download: %w", err)
	}
	it, exact, err := ix.Pick(KubernetesVersion, runtime.GOOS, runtime.GOARCH)
	if err != nil {
		return "", fmt.Errorf("envtest assets: download: %w", err)
	}
	if !exact {
		c.log.Infof("the envtest index has no archive of Kubernetes %s for %s/%s: taking v%s, the newest patch of its minor", KubernetesVersion, runtime.GOOS, runtime.GOARCH, it.Version)
	}
	d, err := cl.Fetch(ctx, st, it)
	if err != nil {
		return "", fmt.Errorf("envtest assets: download: %w", err)
	}
	if kubectl {
		if p := gobuild.CheckBinary(filepath.Join(d, Kubectl)); p != "" {
			return "", fmt.Errorf("envtest assets: download: %s has no kubectl (%s) and none is on PATH", it.Name, p)
		}
	}
	return d, nil
}

// inCache returns a directory already holding the binaries, built or
// downloaded, or "".
func (c *config) inCache(kubectl bool) string {
	if dir, err := c.cacheDir(); err == nil && complete(dir, kubectl) {
		return dir
	}
	return c.storeEntry(kubectl)
}

// storeEntry returns the download store's entry of the pinned version,
// else of the newest patch of its minor, or "".
func (c *config) storeEntry(kubectl bool) string {
	st, err := c.store()
	if err != nil {
		return ""
	}
	want := names(kubectl)
	if d := st.Path(KubernetesVersion, runtime.GOOS, runtime.GOARCH); download.Complete(d, want...) {
		return d
	}
	return st.Newest(KubernetesVersion, runtime.GOOS, runtime.GOARCH, want...)
}

// fromSource is Dir without KUBEBUILDER_ASSETS.
func (c *config) fromSource(ctx context.Context) (string, error) {
	switch c.source {
	case assetsfrom.Build:
		return c.ensureCache(ctx)
	case assetsfrom.Download:
		d, err := c.downloaded(ctx, c.wantKubectl())
		if err != nil {
			return "", fmt.Errorf("%w (--assets-from build builds them from pinned Go modules instead)", err)
		}
		return d, nil
	case assetsfrom.Auto:
		kubectl := c.wantKubectl()
		if d := c.inCache(kubectl); d != "" {
			return d, nil
		}
		d, err := c.downloaded(ctx, kubectl)
		if err == nil {
			return d, nil
		}
		if ctx.Err() != nil {
			return "", err
		}
		c.log.Infof("could not download the local API server binaries (%v): building them from pinned Go modules instead", err)
		return c.ensureCache(ctx)
	}
	return "", fmt.Errorf("envtest assets: unknown source %v (want %s)", c.source, findings.OneOf(assetsfrom.Names))
}

// Downloaded describes a directory of the download store by the archive
// its stamp records ("" when dir is not one): what a result cache keys the
// binaries by.
func Downloaded(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, download.StampName))
	if err != nil {
		return ""
	}
	var archive, sum string
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "archive "); ok {
			archive = v
		}
		if v, ok := strings.CutPrefix(line, "sha512 "); ok {
			sum = v
		}
	}
	if archive == "" || sum == "" {
		return ""
	}
	return archive + " sha512 " + sum
}

// Cached returns the directory Dir would return for these options without
// building or downloading anything (KUBEBUILDER_ASSETS aside), or "" when
// Dir would have to.
func Cached(opts ...Option) string {
	c := newConfig(opts)
	kubectl := c.wantKubectl()
	switch c.source {
	case assetsfrom.Build:
		if d, err := c.cacheDir(); err == nil && complete(d, kubectl) {
			return d
		}
		return ""
	case assetsfrom.Download:
		return c.storeEntry(kubectl)
	}
	return c.inCache(kubectl)
}
