package manifest

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/output"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"sigs.k8s.io/yaml"
)

// DefaultInterval is how often Flux checks the chart source, in the
// canonical form Go's time.Duration prints, which is what kcm and Flux
// store.
const DefaultInterval = "10m0s"

// Options configure ForPath and ForChart.
type Options struct {
	// Repo is the name of the HelmRepository the chart is published in.
	Repo string
	// RepoURL, if set, adds the HelmRepository itself (oci:// or https://).
	RepoURL string
	// Namespace of the objects (default kcm-system).
	Namespace string
	// Name of the ClusterTemplate (default <chart>-<version, dots as dashes>).
	Name string
	// Interval of the chart and repository sources (default 10m0s),
	// written in canonical form (10m becomes 10m0s).
	Interval string
	// Format is how the objects are written: yaml (also "") or json, a
	// v1 List (output.ManifestsAs).
	Format string
}

var dns1123 = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// CanonicalInterval is a Flux source interval as kcm stores and writes it
// back (k0rdent.CanonicalDuration: "10m" becomes "10m0s"), which must be
// positive.
func CanonicalInterval(d string) (string, error) {
	canon, err := k0rdent.CanonicalDuration(d)
	if err != nil {
		return "", err
	}
	if v, _ := time.ParseDuration(canon); v <= 0 {
		return "", fmt.Errorf("%q: want a positive duration", d)
	}
	return canon, nil
}

// ForPath loads the chart at path and returns the YAML of its
// ClusterTemplate, preceded by the HelmRepository when RepoURL is set.
// Errors follow the findings exit-code convention, as template validate
// and render do for the same chart: a chart Helm cannot load, or bad
// options, are a findings.InputError (bad input); a chart that loads but
// whose metadata fails Helm's validation (CHART002) is a plain error.
func ForPath(path string, o Options) ([]byte, error) {
	ch, err := loader.Load(path)
	var verr chart.ValidationError
	switch {
	case err != nil && ch != nil && ch.Metadata != nil && errors.As(err, &verr):
		return nil, fmt.Errorf("chart %s is invalid: %w (kbook template validate shows why)", path, err)
	case err != nil:
		return nil, &findings.InputError{Err: fmt.Errorf("load chart %s: %w", path, err)}
	}
	return ForChart(ch, o)
}

// ForChart is ForPath for a loaded chart.
func ForChart(ch *chart.Chart, o Options) ([]byte, error) {
	out, err := forChart(ch, o)
	if err == nil {
		out, err = output.ManifestsAs(o.Format, out)
	}
	if err != nil {
		return nil, &findings.InputError{Err: err}
	}
	return out, nil
}

func forChart(ch *chart.Chart, o Options) ([]byte, error) {
	if o.Repo == "" {
		return nil, fmt.Errorf("--repo: the name of the HelmRepository the chart is published in is required")
	}
	if !dns1123.MatchString(o.Repo) {
		return nil, fmt.Errorf("--repo %q: not a valid object name (lowercase letters, digits, '-', '.')", o.Repo)
	}
	if o.Namespace == "" {
		o.Namespace = k0rdent.SystemNamespace
	}
	if o.Interval == "" {
		o.Interval = DefaultInterval
	}
	// kcm writes the interval back in Go's form and the ClusterTemplate's
	// spec is immutable: a short form would make every update fail
	// (k0rdent.ImmutableDurations).
	interval, err := CanonicalInterval(o.Interval)
	if err != nil {
		return nil, fmt.Errorf("--interval: %w", err)
	}
	o.Interval = interval
	md := ch.Metadata
	if o.Name == "" {
		o.Name = k0rdent.TemplateName(md.Name, md.Version)
	}
	if len(o.Name) > 253 || !dns1123.MatchString(o.Name) {
		return nil, fmt.Errorf("template name %q: not a valid object name", o.Name)
	}
	var docs []any
	if o.RepoURL != "" {
		repo := map[string]any{
			"apiVersion": k0rdent.FluxSourceAPIVersion,
			"kind":       k0rdent.KindHelmRepository,
			"metadata": map[string]any{
				"name":      o.Repo,
				"namespace": o.Namespace,
				"labels":    map[string]any{k0rdent.ManagedLabel: "true"},
			},
			"spec": map[string]any{"url": o.RepoURL, "interval": o.Interval},
		}
		switch {
		case strings.HasPrefix(o.RepoURL, "oci://"):
			repo["spec"].(map[string]any)["type"] = "oci"
		case strings.HasPrefix(o.RepoURL, "https://"), strings.HasPrefix(o.RepoURL, "http://"):
		default:
			return nil, fmt.Errorf("--repo-url %q: want an oci://, https:// or http:// URL", o.RepoURL)
		}
		docs = append(docs, repo)
	}
	meta := map[string]any{"name": o.Name, "namespace": o.Namespace}
	docs = append(docs, map[string]any{
		"apiVersion": k0rdent.APIVersion,
		"kind":       k0rdent.KindClusterTemplate,
		"metadata":   meta,
		"spec": map[string]any{
			"helm": map[string]any{
				"chartSpec": map[string]any{
					"chart":     md.Name,
					"version":   md.Version,
					"interval":  o.Interval,
					"sourceRef": map[string]any{"kind": k0rdent.KindHelmRepository, "name": o.Repo},
				},
			},
		},
	})
	var out []byte
	for i, d := range docs {
		data, err := yaml.Marshal(d)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, []byte("---\n")...)
		}
		out = append(out, data...)
	}
	return out, nil
}
