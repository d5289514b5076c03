package kcminstall

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/k0rdent/kbook/internal/helmrepo"
)

// The charts kcm's release is made of (kcm templates/provider).
const (
	chartKCM       = "kcm"
	chartRegional  = "kcm-regional"
	chartTemplates = "kcm-templates"
	chartSveltos   = "projectsveltos"
)

// Chart is one packaged chart of a release.
type Chart struct {
	Name, Version string
	// Archive is the .tgz.
	Archive []byte
}

// ReleaseCharts packages every chart of the kcm module's templates folder
// (templatesDir: its provider and cluster charts, those of the
// ProviderTemplates and ClusterTemplates the release ships) for release
// version (e.g. v1.11.4) as kcm's `make kcm-chart-release` does before publishing:
// set-kcm-version stamps kcm, kcm-regional and kcm-templates with the
// version (and the kcm and telemetry image tags), generate-release renames
// the Release and its kcm and regional templates after it, and
// templates-generate writes their ProviderTemplates; kcm-regional is
// packaged inside kcm (its file:// dependency). Dependencies fetched from
// other repositories are packaged inside the chart that names them when
// given in deps (built from their modules: CertManagerChart and
// OperatorChart for kcm-regional, SveltosCRDsChart for projectsveltos),
// its Chart.yaml naming the versions given; the others (Flux, Velero, ...)
// are not, and the charts that need them say so when installed.
// projectsveltos, whose dependencies are Sveltos's CRDs and controllers
// with no condition, then names only those given.
func ReleaseCharts(templatesDir, version string, deps ...*chart.Chart) ([]Chart, error) {
	v := strings.TrimPrefix(version, "v")
	fqdn := strings.ReplaceAll(v, ".", "-")
	providerDir := filepath.Join(templatesDir, "provider")
	var dirs []string
	for _, kind := range []string{"provider", "cluster"} {
		entries, err := os.ReadDir(filepath.Join(templatesDir, kind))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(templatesDir, kind, e.Name()))
			}
		}
	}
	regional, err := stamped(filepath.Join(providerDir, chartRegional), v, map[string]string{"telemetry.controller.image.tag": v})
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	addDeps(regional, deps, used)
	var out []Chart
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "Chart.yaml")); err != nil {
			continue
		}
		var ch *chart.Chart
		switch filepath.Base(dir) {
		case chartRegional:
			ch = regional
		case chartKCM:
			if ch, err = stamped(dir, v, map[string]string{"image.tag": v}); err != nil {
				return nil, err
			}
			for _, d := range ch.Metadata.Dependencies {
				if d.Name == chartRegional {
					d.Version = v
				}
			}
			ch.AddDependency(regional)
		case chartTemplates:
			if ch, err = stamped(dir, v, nil); err != nil {
				return nil, err
			}
			if err := stampTemplates(ch, v, fqdn); err != nil {
				return nil, fmt.Errorf("%s: %w", dir, err)
			}
		default:
			if ch, err = loader.Load(dir); err != nil {
				return nil, fmt.Errorf("chart %s: %w", dir, err)
			}
			if filepath.Base(dir) == chartSveltos && addDeps(ch, deps, used) {
				var kept []*chart.Dependency
				for _, d := range ch.Metadata.Dependencies {
					if sub(ch, d.Name) != nil {
						kept = append(kept, d)
					}
				}
				ch.Metadata.Dependencies, ch.Lock = kept, nil
			}
		}
		archive, err := helmrepo.Package(ch)
		if err != nil {
			return nil, err
		}
		out = append(out, Chart{Name: ch.Name(), Version: ch.Metadata.Version, Archive: archive})
	}
	for _, dep := range deps {
		if !used[dep.Name()] {
			return nil, fmt.Errorf("no chart of the release depends on %s", dep.Name())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// addDeps packages into ch those of deps it names as dependencies, at
// their versions, marking them used; it reports whether it added any.
func addDeps(ch *chart.Chart, deps []*chart.Chart, used map[string]bool) bool {
	added := false
	for _, dep := range deps {
		for _, d := range ch.Metadata.Dependencies {
			if d.Name == dep.Name() {
				d.Version = dep.Metadata.Version
				ch.AddDependency(dep)
				used[dep.Name()], added = true, true
			}
		}
	}
	return added
}

// sub is ch's packaged dependency named name, or nil (also for a nil ch).
func sub(ch *chart.Chart, name string) *chart.Chart {
	if ch == nil {
		return nil
	}
	for _, d := range ch.Dependencies() {
		if d.Name() == name {
			return d
		}
	}
	return nil
}

// stamped loads the chart in dir with its version set to v and the
// values at the given dotted paths set (comments kept, as yq -i does).
func stamped(dir, v string, values map[string]string) (*chart.Chart, error) {
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", dir, err)
	}
	ch.Metadata.Version = v
	if len(values) == 0 {
		return ch, nil
	}
	for _, f := range ch.Raw {
		if f.Name != "values.yaml" {
			continue
		}
		data, err := setValues(f.Data, values)
		if err != nil {
			return nil, fmt.Errorf("%s/values.yaml: %w", dir, err)
		}
		f.Data = data
		if err := yaml.Unmarshal(data, &ch.Values); err != nil {
			return nil, fmt.Errorf("%s/values.yaml: %w", dir, err)
		}
	}
	return ch, nil
}

// setValues sets scalar values at dotted paths of a YAML document,
// keeping its comments and order.
func setValues(data []byte, values map[string]string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("empty document")
	}
	for path, val := range values {
		n := doc.Content[0]
		for _, key := range strings.Split(path, ".") {
			n = mapValue(n, key)
			if n == nil {
				return nil, fmt.Errorf("no %s", path)
			}
		}
		n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", val, 0
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// stampTemplates does generate-release and templates-generate's part for
// the kcm and kcm-regional charts on the kcm-templates chart's files.
func stampTemplates(ch *chart.Chart, v, fqdn string) error {
	release := map[string]string{
		"spec.version":           v,
		"metadata.name":          "kcm-" + fqdn,
		"spec.kcm.template":      "kcm-" + fqdn,
		"spec.regional.template": "kcm-regional-" + fqdn,
	}
	templates := map[string]map[string]string{
		"files/templates/kcm.yaml":          {"metadata.name": "kcm-" + fqdn, "spec.helm.chartSpec.version": v},
		"files/templates/kcm-regional.yaml": {"metadata.name": "kcm-regional-" + fqdn, "spec.helm.chartSpec.version": v},
	}
	found := 0
	for _, f := range ch.Files {
		set := templates[f.Name]
		if f.Name == "files/release.yaml" {
			set = release
		}
		if set == nil {
			continue
		}
		data, err := setValues(f.Data, set)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		f.Data = data
		found++
	}
	if found != 3 {
		return fmt.Errorf("expected files/release.yaml and files/templates/kcm{,-regional}.yaml, found %d of them", found)
	}
	return nil
}
