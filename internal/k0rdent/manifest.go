// Package k0rdent builds the k0rdent objects that install a chart as a
// template: the ClusterTemplate that points kcm at the chart, and the Flux
// HelmRepository it is pulled from.
package k0rdent

import (
	"fmt"
	"regexp"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"sigs.k8s.io/yaml"
)

// API versions and labels kcm expects.
const (
	APIVersion = "k0rdent.mirantis.com/v1beta1"
	// ManagedLabel marks sources kcm may use for templates.
	ManagedLabel = "k0rdent.mirantis.com/managed"
	// DefaultNamespace is kcm's system namespace, where templates that
	// are shared through AccessManagement live.
	DefaultNamespace = "kcm-system"
	// DefaultInterval is how often Flux checks the chart source.
	DefaultInterval = "10m0s"
)

// ManifestOptions configure Manifest.
type ManifestOptions struct {
	// Repo is the name of the HelmRepository the chart is published in.
	Repo string
	// RepoURL, if set, adds the HelmRepository itself (oci:// or https://).
	RepoURL string
	// Namespace of the objects (default kcm-system).
	Namespace string
	// Name of the ClusterTemplate (default <chart>-<version, dots as dashes>).
	Name string
	// Interval of the chart and repository sources (default 10m0s).
	Interval string
}

var dns1123 = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// TemplateName is the conventional ClusterTemplate name of a chart version,
// as kcm names its own: aws-standalone-cp 1.0.20 → aws-standalone-cp-1-0-20.
func TemplateName(chartName, version string) string {
	v := strings.NewReplacer(".", "-", "+", "-", "_", "-").Replace(version)
	return strings.ToLower(chartName + "-" + v)
}

// Manifest loads the chart at path and returns the YAML of its
// ClusterTemplate, preceded by the HelmRepository when RepoURL is set.
func Manifest(path string, o ManifestOptions) ([]byte, error) {
	ch, err := loader.Load(path)
	if err != nil {
		return nil, fmt.Errorf("load chart %s: %w", path, err)
	}
	return ManifestFor(ch, o)
}

// ManifestFor is Manifest for a loaded chart.
func ManifestFor(ch *chart.Chart, o ManifestOptions) ([]byte, error) {
	if o.Repo == "" {
		return nil, fmt.Errorf("--repo: the name of the HelmRepository the chart is published in is required")
	}
	if !dns1123.MatchString(o.Repo) {
		return nil, fmt.Errorf("--repo %q: not a valid object name (lowercase letters, digits, '-', '.')", o.Repo)
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.Interval == "" {
		o.Interval = DefaultInterval
	}
	md := ch.Metadata
	if o.Name == "" {
		o.Name = TemplateName(md.Name, md.Version)
	}
	if len(o.Name) > 253 || !dns1123.MatchString(o.Name) {
		return nil, fmt.Errorf("template name %q: not a valid object name", o.Name)
	}
	var docs []any
	if o.RepoURL != "" {
		repo := map[string]any{
			"apiVersion": "source.toolkit.fluxcd.io/v1",
			"kind":       "HelmRepository",
			"metadata": map[string]any{
				"name":      o.Repo,
				"namespace": o.Namespace,
				"labels":    map[string]any{ManagedLabel: "true"},
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
		"apiVersion": APIVersion,
		"kind":       "ClusterTemplate",
		"metadata":   meta,
		"spec": map[string]any{
			"helm": map[string]any{
				"chartSpec": map[string]any{
					"chart":     md.Name,
					"version":   md.Version,
					"interval":  o.Interval,
					"sourceRef": map[string]any{"kind": "HelmRepository", "name": o.Repo},
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
