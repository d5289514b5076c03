package kcminstall

import (
	"bytes"
	"fmt"
	"io"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/registry"
)

// ChartsPath is where k0rdent's charts live in a registry (its
// templatesRepoURL is oci://<registry>/charts, as ghcr.io/k0rdent/kcm/charts).
const ChartsPath = "charts"

func registryClient() (*registry.Client, error) {
	return registry.NewClient(registry.ClientOptPlainHTTP(), registry.ClientOptWriter(io.Discard))
}

// Push pushes charts to the registry at host (host:port) under ChartsPath.
func Push(host string, charts []Chart) error {
	c, err := registryClient()
	if err != nil {
		return err
	}
	for _, ch := range charts {
		ref := fmt.Sprintf("%s/%s/%s:%s", host, ChartsPath, ch.Name, ch.Version)
		if _, err := c.Push(ch.Archive, ref); err != nil {
			return fmt.Errorf("push %s: %w", ref, err)
		}
	}
	return nil
}

// Pull pulls a chart from the registry at host, as `helm install
// oci://host/charts/name --version v` does.
func Pull(host, name, version string) (*chart.Chart, error) {
	c, err := registryClient()
	if err != nil {
		return nil, err
	}
	ref := fmt.Sprintf("%s/%s/%s:%s", host, ChartsPath, name, version)
	res, err := c.Pull(ref)
	if err != nil {
		return nil, fmt.Errorf("pull oci://%s: %w", ref, err)
	}
	ch, err := loader.LoadArchive(bytes.NewReader(res.Chart.Data))
	if err != nil {
		return nil, fmt.Errorf("pull oci://%s: %w", ref, err)
	}
	return ch, nil
}
