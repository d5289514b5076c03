package provider

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

// Defaults for rendering a ProviderTemplate chart as kcm installs it.
const (
	// DefaultNamespace is kcm's system namespace, where kcm creates the
	// HelmRelease of every provider of the Management object.
	DefaultNamespace = k0rdent.SystemNamespace
)

// RenderOptions say how to render ProviderTemplate charts.
//
// kcm (internal/controller/components/reconciler.go, getHelmReleaseReconcileOpts)
// installs each provider of Management.spec.providers as a Flux
// HelmRelease in its system namespace, named after the provider entry
// (which is the chart's name for kcm's own providers), with the entry's
// config as values. internal/controller/components/values.go
// (getGlobalValues) coalesces a `global` map into them when kcm runs with
// a global registry, an image pull secret, a proxy or provider reload.
type RenderOptions struct {
	// ReleaseName is the Management.spec.providers entry name (default: the
	// chart name).
	ReleaseName string
	// Namespace is kcm's system namespace (default kcm-system).
	Namespace string
	// Values are the entry's config, merged over the chart's defaults.
	Values map[string]any
	// Registry, when set, is injected as global.registry, as kcm does when
	// it runs with --global-registry.
	Registry string
}

const renderHint = "render it with `helm template` and the values of the Management.spec.providers entry; kcm installs nothing of a chart that does not render"

// render renders the chart's templates and collects its crds/ files.
func render(c *Chart, opts RenderOptions) ([]*Object, *findings.Finding) {
	ch := c.Chart
	user := map[string]any{}
	for k, v := range opts.Values {
		user[k] = v
	}
	if opts.Registry != "" {
		g, _ := user["global"].(map[string]any)
		if g == nil {
			g = map[string]any{}
		}
		g["registry"] = opts.Registry
		user["global"] = g
	}
	release := chartutil.ReleaseOptions{
		Name:      cmp.Or(opts.ReleaseName, ch.Metadata.Name),
		Namespace: cmp.Or(opts.Namespace, DefaultNamespace),
		Revision:  1,
		IsInstall: true,
	}
	vals, err := chartutil.ToRenderValues(ch, user, release, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, &findings.Finding{Rule: RuleChartRender, Object: chartID(c), File: c.File("values.yaml"), Line: 1, Message: "the values do not coalesce: " + err.Error(), Hint: renderHint}
	}
	out, err := engine.Render(ch, vals)
	if err != nil {
		f := &findings.Finding{Rule: RuleChartRender, Object: chartID(c), File: c.File("Chart.yaml"), Line: 1, Message: "the chart does not render: " + err.Error(), Hint: renderHint}
		if file, line, ok := templateErrorPos(err.Error(), ch.Metadata.Name); ok {
			f.File, f.Line = c.File(file), line
		}
		return nil, f
	}
	sources := map[string][]byte{}
	for _, t := range ch.Templates {
		sources[ch.Metadata.Name+"/"+t.Name] = t.Data
	}
	var objs []*Object
	names := make([]string, 0, len(out))
	for n := range out {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		base := path.Base(n)
		if strings.HasPrefix(base, "_") || strings.HasSuffix(n, "NOTES.txt") || strings.TrimSpace(out[n]) == "" {
			continue
		}
		rel := strings.TrimPrefix(n, ch.Metadata.Name+"/")
		docs, err := parseDocuments(c.File(rel), []byte(out[n]))
		if err != nil {
			return nil, &findings.Finding{Rule: RuleChartRender, Object: chartID(c), File: c.File(rel), Line: 1, Message: "the template renders YAML that does not parse: " + err.Error(), Hint: renderHint}
		}
		src := sources[n]
		for _, d := range docs {
			d.Chart = c
			if strings.Contains(string(src), "{{") {
				d.source = src
			}
			if d.Namespace == "" && !clusterScopedKind(d.Group(), d.Kind) {
				// Helm installs namespaced objects without a namespace into
				// the release namespace.
				d.Namespace = release.Namespace
			}
		}
		objs = append(objs, docs...)
	}
	for _, f := range ch.CRDObjects() {
		docs, err := parseDocuments(c.File(strings.TrimPrefix(f.Filename, ch.Metadata.Name+"/")), f.File.Data)
		if err != nil {
			return nil, &findings.Finding{Rule: RuleChartRender, Object: chartID(c), File: c.File(f.Filename), Line: 1, Message: err.Error(), Hint: renderHint}
		}
		for _, d := range docs {
			d.Chart = c
		}
		objs = append(objs, docs...)
	}
	return objs, nil
}

// templateErrorPos finds "template: chart/templates/x.yaml:12:3:" in a
// Helm rendering error.
func templateErrorPos(msg, chartName string) (string, int, bool) {
	i := strings.Index(msg, chartName+"/")
	if i < 0 {
		return "", 0, false
	}
	rest := msg[i+len(chartName)+1:]
	file, after, ok := strings.Cut(rest, ":")
	if !ok {
		return "", 0, false
	}
	line := 0
	for _, r := range after {
		if r < '0' || r > '9' {
			break
		}
		line = line*10 + int(r-'0')
	}
	return file, line, line > 0
}

// clusterScopedKind tells kinds a provider's components commonly hold
// that are not namespaced.
func clusterScopedKind(group, kind string) bool {
	switch group + "/" + kind {
	case "/Namespace", "rbac.authorization.k8s.io/ClusterRole", "rbac.authorization.k8s.io/ClusterRoleBinding",
		"apiextensions.k8s.io/CustomResourceDefinition", "admissionregistration.k8s.io/ValidatingWebhookConfiguration",
		"admissionregistration.k8s.io/MutatingWebhookConfiguration", k0rdent.Group + "/" + k0rdent.KindProviderInterface,
		k0rdent.Group + "/" + k0rdent.KindProviderTemplate, k0rdent.Group + "/" + k0rdent.KindManagement, "scheduling.k8s.io/PriorityClass",
		"storage.k8s.io/StorageClass", "apiregistration.k8s.io/APIService", "cert-manager.io/ClusterIssuer":
		return true
	}
	return false
}
