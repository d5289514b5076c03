package upgrade

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/registry"
	"helm.sh/helm/v3/pkg/repo"
	"sigs.k8s.io/yaml"
)

// ChartFinder finds the chart a ClusterTemplate installs: in local
// folders first (chart folders and .tgz archives, matched by Chart.yaml
// name and version), then from the template's HelmRepository (http(s)
// index or OCI registry) into a temporary folder.
type ChartFinder struct {
	// Dirs are searched, with their subfolders one level down.
	Dirs []string
	// TempDir receives pulled charts; no pull happens when it is empty.
	TempDir string
	// Client does the HTTP requests (http.DefaultClient when nil).
	Client *http.Client
}

// Repository is where a template's chart is published.
type Repository struct {
	// URL is the HelmRepository's spec.url (https://, http:// or oci://).
	URL string
	// Name names the HelmRepository, for messages.
	Name string
}

// Find returns the path of chart name at version.
func (f *ChartFinder) Find(ctx context.Context, name, version string, r *Repository) (string, error) {
	for _, dir := range f.Dirs {
		if p := findLocal(dir, name, version); p != "" {
			return p, nil
		}
	}
	where := "no --charts folder holds it"
	if len(f.Dirs) > 0 {
		where = "not in " + strings.Join(f.Dirs, ", ")
	}
	if r == nil || r.URL == "" {
		return "", fmt.Errorf("chart %s %s: %s, and the template names no HelmRepository to pull it from: give its folder with --charts", name, version, where)
	}
	if f.TempDir == "" {
		return "", fmt.Errorf("chart %s %s: %s", name, version, where)
	}
	p, err := f.pull(ctx, name, version, r)
	if err != nil {
		return "", fmt.Errorf("chart %s %s: %s, and pulling it from HelmRepository %s (%s) failed: %w; give its folder with --charts", name, version, where, r.Name, r.URL, err)
	}
	return p, nil
}

// findLocal looks for the chart in dir: dir itself, its subfolders and
// archives (<name>-<version>.tgz first).
func findLocal(dir, name, version string) string {
	if matches(dir, name, version) {
		return dir
	}
	if p := filepath.Join(dir, name+"-"+version+".tgz"); matches(p, name, version) {
		return p
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if (e.IsDir() || strings.HasSuffix(e.Name(), ".tgz")) && matches(p, name, version) {
			return p
		}
	}
	return ""
}

// matches reports whether the chart at p is name at version.
func matches(p, name, version string) bool {
	fi, err := os.Stat(p)
	if err != nil {
		return false
	}
	if fi.IsDir() {
		data, err := os.ReadFile(filepath.Join(p, "Chart.yaml"))
		if err != nil {
			return false
		}
		var md struct{ Name, Version string }
		if yaml.Unmarshal(data, &md) != nil {
			return false
		}
		return md.Name == name && md.Version == version
	}
	ch, err := loader.Load(p)
	return err == nil && ch.Metadata.Name == name && ch.Metadata.Version == version
}

func (f *ChartFinder) pull(ctx context.Context, name, version string, r *Repository) (string, error) {
	var data []byte
	var err error
	switch {
	case strings.HasPrefix(r.URL, "oci://"):
		data, err = pullOCI(strings.TrimSuffix(r.URL, "/")+"/"+name, version)
	case strings.HasPrefix(r.URL, "https://"), strings.HasPrefix(r.URL, "http://"):
		data, err = f.pullHTTP(ctx, r.URL, name, version)
	default:
		err = fmt.Errorf("unsupported URL scheme")
	}
	if err != nil {
		return "", err
	}
	p := filepath.Join(f.TempDir, name+"-"+version+".tgz")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return "", err
	}
	if !matches(p, name, version) {
		return "", fmt.Errorf("the archive pulled is not chart %s %s", name, version)
	}
	return p, nil
}

func pullOCI(ref, version string) ([]byte, error) {
	c, err := registry.NewClient(registry.ClientOptEnableCache(false))
	if err != nil {
		return nil, err
	}
	res, err := c.Pull(strings.TrimPrefix(ref, "oci://")+":"+version, registry.PullOptWithChart(true))
	if err != nil {
		return nil, err
	}
	return res.Chart.Data, nil
}

// pullHTTP reads the repository's index.yaml and downloads the archive it
// lists for the version.
func (f *ChartFinder) pullHTTP(ctx context.Context, repoURL, name, version string) ([]byte, error) {
	base, err := url.Parse(strings.TrimSuffix(repoURL, "/") + "/")
	if err != nil {
		return nil, err
	}
	idxData, err := f.get(ctx, base.ResolveReference(&url.URL{Path: "index.yaml"}).String())
	if err != nil {
		return nil, err
	}
	var idx repo.IndexFile
	if err := yaml.Unmarshal(idxData, &idx); err != nil {
		return nil, fmt.Errorf("index.yaml: %w", err)
	}
	cv, err := idx.Get(name, version)
	if err != nil {
		return nil, fmt.Errorf("index.yaml: %w", err)
	}
	if len(cv.URLs) == 0 {
		return nil, fmt.Errorf("index.yaml lists no URL for %s %s", name, version)
	}
	u, err := url.Parse(cv.URLs[0])
	if err != nil {
		return nil, err
	}
	return f.get(ctx, base.ResolveReference(u).String())
}

func (f *ChartFinder) get(ctx context.Context, u string) ([]byte, error) {
	c := f.Client
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 64<<20))
}
