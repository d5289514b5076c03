package scaffold

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/cli"
	"helm.sh/helm/v3/pkg/downloader"
	"helm.sh/helm/v3/pkg/getter"
	"helm.sh/helm/v3/pkg/registry"
)

// HelmPull downloads a chart the way `helm pull` does, with the user's
// Helm settings (registry logins, repository credentials), and loads it.
// repo is an oci:// or http(s):// repository.
func HelmPull(repo, name, version string) (*chart.Chart, error) {
	settings := cli.New()
	rc, err := registry.NewClient(registry.ClientOptCredentialsFile(settings.RegistryConfig))
	if err != nil {
		return nil, fmt.Errorf("registry client: %w", err)
	}
	cfg := &action.Configuration{RegistryClient: rc}
	pull := action.NewPullWithOpts(action.WithConfig(cfg))
	pull.Settings = settings
	pull.Version = version
	dir, err := os.MkdirTemp("", "kbook-pull-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	pull.DestDir = dir
	ref := name
	if strings.HasPrefix(repo, "oci://") {
		ref = strings.TrimSuffix(repo, "/") + "/" + name
	} else {
		pull.RepoURL = repo
	}
	if _, err := pull.Run(ref); err != nil {
		return nil, fmt.Errorf("pull %s %s: %w", ref, version, err)
	}
	tgz, err := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if err != nil || len(tgz) != 1 {
		return nil, fmt.Errorf("pull %s %s: no chart archive downloaded", ref, version)
	}
	return loader.Load(tgz[0])
}

// DependencyUpdate is `helm dependency update DIR`: it fetches the chart's
// dependencies into DIR/charts and writes Chart.lock. file:// dependencies
// (kbook's --extend wrappers of a local chart) need no network.
func DependencyUpdate(dir string, out io.Writer) error {
	settings := cli.New()
	rc, err := registry.NewClient(registry.ClientOptCredentialsFile(settings.RegistryConfig))
	if err != nil {
		return fmt.Errorf("registry client: %w", err)
	}
	m := &downloader.Manager{
		Out:              out,
		ChartPath:        dir,
		Getters:          getter.All(settings),
		RegistryClient:   rc,
		RepositoryConfig: settings.RepositoryConfig,
		RepositoryCache:  settings.RepositoryCache,
		SkipUpdate:       true,
	}
	if err := m.Update(); err != nil {
		return fmt.Errorf("dependency update %s: %w", dir, err)
	}
	return nil
}
