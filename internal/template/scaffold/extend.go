package scaffold

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/k0rdent/kbook/internal/inputfile"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/skeleton"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"sigs.k8s.io/yaml"
)

// BaseAlias is the dependency alias a wrapper chart gives the template it
// extends: its values live under base: in the wrapper's values.
const BaseAlias = "base"

// ExtendOptions configure Extend.
type ExtendOptions struct {
	// Name and Dir as for Init.
	Name, Dir string
	// Base is the template to extend: a chart directory or .tgz, or
	// REPOSITORY/CHART@VERSION with an oci://, https:// or http://
	// repository.
	Base string
	// Registry, if set, is the organisation's registry: global.registry,
	// which Helm passes on to the base chart.
	Registry string
	// Labels are organisation labels for the CAPI Cluster.
	Labels map[string]string
	// Values are organisation defaults for the base chart (machine sizes,
	// regions...), placed under base:.
	Values map[string]any
	// Load reads a remote base chart; nil means remote bases are refused
	// with advice. The CLI passes a Helm pull.
	Load func(repo, chart, version string) (*chart.Chart, error)
}

var remoteRef = regexp.MustCompile(`^((?:oci|https?)://\S+)/([a-z0-9][a-z0-9._-]*)@(\S+)$`)

// Extend writes a chart that wraps an existing template as a Helm
// dependency and layers organisation requirements on it, without copying
// it: its Chart.yaml repeats the base's k0rdent annotations (kcm reads
// them from the chart it installs) and declares the dependency; values.yaml
// holds the organisation's registry, labels and defaults; templates/ is
// there for extra manifests.
func Extend(o ExtendOptions) (dir string, files []string, err error) {
	if !chartName.MatchString(o.Name) {
		return "", nil, fmt.Errorf("chart name %q: use lowercase letters, digits and dashes (at most 53 characters), starting and ending with a letter or digit", o.Name)
	}
	if o.Dir == "" {
		o.Dir = o.Name
	}
	base, dep, err := resolveBase(o)
	if err != nil {
		return "", nil, err
	}
	md := base.Metadata
	annotations := map[string]string{}
	for k, v := range md.Annotations {
		if strings.HasPrefix(k, k0rdent.ContractPrefix) || strings.HasPrefix(k, k0rdent.Group+"/") {
			annotations[k] = v
		}
	}
	if annotations[k0rdent.ProviderLabel] == "" {
		return "", nil, fmt.Errorf("%s: Chart.yaml has no %s annotation: it is not a k0rdent ClusterTemplate chart", o.Base, k0rdent.ProviderLabel)
	}
	chartData, err := wrapperChart(o.Name, md, annotations, dep)
	if err != nil {
		return "", nil, err
	}
	values := &strings.Builder{}
	fmt.Fprintf(values, "# %s layers organisation requirements on %s %s.\n", o.Name, md.Name, md.Version)
	fmt.Fprintf(values, "#\n# Helm passes %s: to the base chart as its values, and global: as its\n", BaseAlias)
	values.WriteString("# global values. kcm injects clusterIdentity and clusterLabels at the top\n")
	values.WriteString("# level, where the base chart does not see them: ClusterDeployments of this\n")
	fmt.Fprintf(values, "# template set them under %s: in spec.config (see README.md).\n\n", BaseAlias)
	global := map[string]any{}
	if o.Registry != "" {
		global["registry"] = o.Registry
	}
	baseVals := map[string]any{}
	for k, v := range o.Values {
		baseVals[k] = v
	}
	if len(o.Labels) > 0 {
		labels := map[string]any{}
		for k, v := range o.Labels {
			labels[k] = v
		}
		baseVals["clusterLabels"] = labels
	}
	doc := map[string]any{"global": global, BaseAlias: baseVals}
	vdata, err := yaml.Marshal(doc)
	if err != nil {
		return "", nil, err
	}
	values.Write(vdata)

	out := map[string][]byte{
		"Chart.yaml":                chartData,
		"values.yaml":               []byte(values.String()),
		"values.schema.json":        []byte(wrapperSchema),
		"templates/_helpers.tpl":    []byte(wrapperHelpers),
		"templates/org-labels.yaml": []byte(wrapperExtra),
		".helmignore":               []byte(".git/\n*.swp\nREADME.md\n"),
		"README.md":                 []byte(wrapperReadme(o.Name, md)),
	}
	return o.Dir, skeleton.Names(out), skeleton.Write(o.Dir, out)
}

// wrapperChart writes the wrapper's Chart.yaml in the usual key order.
func wrapperChart(name string, base *chart.Metadata, annotations map[string]string, dep map[string]any) ([]byte, error) {
	var b strings.Builder
	b.WriteString("apiVersion: v2\n")
	fmt.Fprintf(&b, "name: %q\n", name)
	fmt.Fprintf(&b, "description: %s %s with %s's requirements, made by kbook template init --extend.\n", base.Name, base.Version, name)
	b.WriteString("type: application\n")
	b.WriteString("# Bump for every change: each version becomes its own ClusterTemplate.\nversion: 0.1.0\n")
	if base.AppVersion != "" {
		fmt.Fprintf(&b, "appVersion: %q\n", base.AppVersion)
	}
	b.WriteString("# kcm reads these from the chart it installs: they repeat the base chart's.\n")
	ann, err := yaml.Marshal(map[string]any{"annotations": annotations})
	if err != nil {
		return nil, err
	}
	b.Write(ann)
	b.WriteString("# The template this chart extends; helm dependency update fetches it into charts/.\n")
	deps, err := yaml.Marshal(map[string]any{"dependencies": []any{dep}})
	if err != nil {
		return nil, err
	}
	b.Write(deps)
	return []byte(b.String()), nil
}

// resolveBase loads the base chart and describes it as a dependency.
func resolveBase(o ExtendOptions) (*chart.Chart, map[string]any, error) {
	if m := remoteRef.FindStringSubmatch(o.Base); m != nil {
		if o.Load == nil {
			return nil, nil, fmt.Errorf("%s: remote charts need a download; pull it first (helm pull %s/%s --version %s) and pass the .tgz", o.Base, m[1], m[2], m[3])
		}
		ch, err := o.Load(m[1], m[2], m[3])
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", o.Base, err)
		}
		return ch, map[string]any{"name": ch.Metadata.Name, "version": ch.Metadata.Version, "repository": m[1], "alias": BaseAlias}, nil
	}
	if _, err := os.Stat(o.Base); err != nil {
		return nil, nil, fmt.Errorf("--extend %s: not a chart directory or .tgz, nor REPOSITORY/CHART@VERSION (oci://, https://): %w", o.Base, err)
	}
	if err := inputfile.CheckChart(o.Base); err != nil {
		return nil, nil, fmt.Errorf("--extend: %w", err)
	}
	ch, err := loader.Load(o.Base)
	if err != nil {
		return nil, nil, fmt.Errorf("--extend %s: %w", o.Base, err)
	}
	abs, err := filepath.Abs(o.Base)
	if err != nil {
		return nil, nil, err
	}
	dirAbs, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, nil, err
	}
	rel, err := filepath.Rel(dirAbs, abs)
	if err != nil {
		rel = abs
	}
	dep := map[string]any{"name": ch.Metadata.Name, "version": ch.Metadata.Version, "repository": "file://" + filepath.ToSlash(rel), "alias": BaseAlias}
	return ch, dep, nil
}

// wrapperSchema accepts the values kcm injects and the base's values under
// base:, which the base chart's own schema checks.
const wrapperSchema = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "clusterIdentity": {"type": "object"},
    "clusterLabels": {"type": "object"},
    "global": {"type": "object"},
    "base": {
      "type": "object",
      "description": "Values of the base template; its own values.schema.json applies.",
      "properties": {
        "clusterIdentity": {
          "type": "object",
          "description": "The identity for the base template: kcm injects clusterIdentity at the top level only, which a dependency does not see.",
          "properties": {"name": {"type": "string"}}
        }
      }
    }
  },
  "required": ["base"]
}
`

const wrapperHelpers = `{{/* Named from the release, like the base chart's objects. */}}
{{- define "wrapper.name" -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end }}
`

// wrapperExtra is an example of an extra manifest the organisation adds.
const wrapperExtra = `{{- /*
Extra manifests the organisation adds to every cluster go in templates/.
This ConfigMap records who owns the cluster; replace or remove it.
*/}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "wrapper.name" . }}-owner
data:
  template: {{ .Chart.Name }}-{{ .Chart.Version }}
`

func wrapperReadme(name string, base *chart.Metadata) string {
	return fmt.Sprintf(`# %s

%s %s with organisation requirements, made by `+"`kbook template init --extend`"+`.
The base chart is a Helm dependency (alias `+"`%s`"+`), not a copy:

`+"```sh"+`
helm dependency update .          # fetch %s %s into charts/
kbook template validate .
`+"```"+`

A ClusterDeployment of this template passes the base chart's values under
`+"`%s:`"+`. kcm injects `+"`clusterIdentity`"+` and `+"`clusterLabels`"+` at the top
level, and Helm passes only `+"`global`"+` on to a dependency, so set the
identity for the base chart too:

`+"```yaml"+`
spec:
  config:
    %s:
      clusterIdentity:
        name: my-credential-identity
`+"```"+`
`, name, base.Name, base.Version, BaseAlias, base.Name, base.Version, BaseAlias, BaseAlias)
}
