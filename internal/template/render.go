package template

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/helmvalues"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// Defaults for rendering as kcm would for a ClusterDeployment.
const (
	DefaultReleaseName = "render-test"
	DefaultNamespace   = k0rdent.SystemNamespace

	// The second rendering, which tells names and namespaces derived from
	// the release from fixed ones (RENDER003, RENDER008).
	otherReleaseName = "second-release"
	otherNamespace   = "kbook-other-namespace"

	placeholderIdentity = "kbook-placeholder-identity"
)

// Object is one rendered Kubernetes object.
type Object struct {
	// Template is the chart-relative file that rendered it, such as
	// templates/cluster.yaml (charts/sub/templates/x.yaml for subcharts).
	Template     string
	Unstructured *unstructured.Unstructured
}

// RenderOptions says how to render a chart for `kbook template render`.
type RenderOptions struct {
	// Config is a file with a ClusterDeployment (its spec.config is used)
	// or a plain values map.
	Config string
	// ConfigValues is the config as values already read (a
	// ClusterDeployment's spec.config), used when Config is empty.
	ConfigValues map[string]any
	// ReleaseName is the ClusterDeployment name (DefaultReleaseName when
	// empty); Namespace its namespace (DefaultNamespace when empty).
	ReleaseName, Namespace string
	// Values override the values kcm injects (clusterIdentity, global,
	// clusterLabels) and anything else: they are merged last, over the
	// config and the injected values.
	Values map[string]any
}

// RenderChart is Render as kbook template render runs it: a chart path
// that does not exist is bad input naming the path and the reason alone
// ("chart x: no such file or directory").
func RenderChart(chartPath string, opts RenderOptions) ([]Object, error) {
	if _, err := os.Stat(chartPath); err != nil {
		return nil, &findings.InputError{Err: fmt.Errorf("chart %s: %w", chartPath, errors.Unwrap(err))}
	}
	return Render(chartPath, opts)
}

// Render renders the chart as kcm would install it for a ClusterDeployment
// with the given config, and returns the objects in a stable order
// (template file, then document order). Any rendering problem is an error
// naming the template file and line; a chart or config that cannot be
// read is a findings.InputError (the exit-code convention's bad input, as
// for ValidateChart).
func Render(chartPath string, opts RenderOptions) ([]Object, error) {
	src, lf, err := loadChart(chartPath)
	if err != nil {
		return nil, err
	}
	if lf != nil {
		return nil, &findings.InputError{File: joinChart(chartPath, lf.File), Line: lf.Line, Err: errors.New(lf.Message)}
	}
	if src.validateErr != nil {
		// helm install refuses it too: validate reports it as CHART002.
		return nil, fmt.Errorf("%s: the chart is invalid: %v", joinChart(chartPath, "Chart.yaml"), src.validateErr)
	}
	user := map[string]any{}
	if opts.Config == "" && opts.ConfigValues != nil {
		user = helmvalues.DeepCopy(opts.ConfigValues)
	}
	if opts.Config != "" {
		vs, err := loadConfig(opts.Config)
		if err != nil {
			return nil, err
		}
		user = vs.values
	}
	release, ns := cmp.Or(opts.ReleaseName, DefaultReleaseName), cmp.Or(opts.Namespace, DefaultNamespace)
	vals := injectValues(user, src.chart.Values, ns)
	if opts.Values != nil {
		vals = chartutil.MergeTables(helmvalues.DeepCopy(opts.Values), vals)
	}
	r := src.render(vals, release, ns)
	if r.err != nil {
		return nil, errors.New(formatLocated(chartPath, *r.err))
	}
	var out []Object
	var errs []error
	for _, d := range r.docs {
		if d.err != "" {
			errs = append(errs, fmt.Errorf("%s: document %d: %s", d.template, d.index+1, d.err))
			continue
		}
		out = append(out, Object{Template: d.template, Unstructured: d.obj})
	}
	return out, errors.Join(errs...)
}

// joinChart names a chart file from the working directory.
func joinChart(chartPath, file string) string {
	if file == "" {
		return chartPath
	}
	return filepath.ToSlash(filepath.Join(chartPath, file))
}

// formatLocated is a finding as an error message at its place in the chart.
func formatLocated(chartPath string, f findings.Finding) string {
	if f.File == "" {
		return f.Message
	}
	loc := joinChart(chartPath, f.File)
	if f.Line > 0 {
		loc += ":" + strconv.Itoa(f.Line)
	}
	return loc + ": " + f.Message
}

// injectValues returns the user's values with what kcm adds when it
// installs a ClusterDeployment (internal/controller/clusterdeployment_controller.go,
// fillHelmValues):
//
//   - clusterIdentity is always replaced by the Credential's identityRef
//     {apiVersion, kind, name, namespace}; kbook uses a placeholder name,
//     of the kind (and apiVersion) the chart's default clusterIdentity
//     names, else a Secret;
//   - global {registry, k0sURL, registryCertSecret, k0sURLCertSecret} replaces
//     the user's global when kcm runs with any of those set; kbook injects it
//     with the registry the values already name (global.registry of the
//     config, else of the chart's defaults), so rendering neither drops nor
//     invents a registry;
//   - clusterLabels is the ClusterDeployment's labels when the config has
//     none; kbook uses an empty map.
func injectValues(user, defaults map[string]any, namespace string) map[string]any {
	out := helmvalues.DeepCopy(user)
	// The Credential's identity is of the kind the provider takes
	// (AWSClusterStaticIdentity for CAPA): stand in with the kind the
	// chart's defaults name, else a Secret (what kcm requires for
	// infrastructure-internal and most providers' credentials).
	apiVersion, kind := "v1", "Secret"
	if def, ok := defaults["clusterIdentity"].(map[string]any); ok {
		if k, _ := def["kind"].(string); k != "" && k != kind {
			kind = k
			apiVersion, _ = def["apiVersion"].(string)
		}
	}
	out["clusterIdentity"] = map[string]any{
		"apiVersion": apiVersion,
		"kind":       kind,
		"name":       placeholderIdentity,
		"namespace":  namespace,
	}
	registry := ""
	for _, m := range []map[string]any{user, defaults} {
		if g, ok := m["global"].(map[string]any); ok {
			if r, ok := g["registry"].(string); ok && r != "" {
				registry = r
				break
			}
		}
	}
	out["global"] = map[string]any{
		"registry":           registry,
		"k0sURL":             "",
		"registryCertSecret": "",
		"k0sURLCertSecret":   "",
	}
	if _, ok := out["clusterLabels"]; !ok {
		out["clusterLabels"] = map[string]any{}
	}
	return out
}

// injectedKeys are the top-level values kcm sets.
var injectedKeys = []string{"clusterIdentity", "global", "clusterLabels"}

// rendering is the outcome of rendering a chart once.
type rendering struct {
	docs   []renderedDoc
	values map[string]any    // the coalesced .Values
	err    *findings.Finding // RENDER001, without rule set
}

// renderedDoc is one YAML document of a rendered template.
type renderedDoc struct {
	template string
	index    int // in the template's output
	obj      *unstructured.Unstructured
	err      string // why it is not an object
}

// withDependencies returns the chart with its dependencies processed for
// these values, as `helm install` does before rendering
// (chartutil.ProcessDependenciesWithMerge): conditions and tags disable
// dependencies, aliases rename them (so a dependency with alias base reads
// the values under base:) and import-values apply. A chart without
// dependencies is returned as loaded.
func (s *chartSource) withDependencies(user map[string]any) (*chart.Chart, error) {
	if len(s.chart.Metadata.Dependencies) == 0 {
		return s.chart, nil
	}
	// ProcessDependencies changes the chart: work on a fresh copy.
	ch, err := loader.Load(s.path)
	if err != nil {
		ch = s.chart
	}
	if err := chartutil.ProcessDependenciesWithMerge(ch, user); err != nil {
		return nil, err
	}
	return ch, nil
}

// missingDependency reports an enabled dependency that is not in charts/:
// `helm install` refuses such a chart (action.CheckDependencies: "found in
// Chart.yaml, but missing in charts/ directory").
func (s *chartSource) missingDependency(ch *chart.Chart) *findings.Finding {
	for i, req := range ch.Metadata.Dependencies {
		if !req.Enabled {
			continue
		}
		name := req.Name
		if req.Alias != "" {
			name = req.Alias
		}
		found := false
		for _, d := range ch.Dependencies() {
			found = found || d.Name() == name || d.Name() == req.Name
		}
		if !found {
			line, _ := lineOf(s.node("Chart.yaml"), vpath{"dependencies", i})
			chartName := req.Name
			if orig := s.chart.Metadata.Dependencies; i < len(orig) {
				chartName = orig[i].Name // processing may rename it to its alias
			}
			return &findings.Finding{File: "Chart.yaml", Line: line,
				Message: fmt.Sprintf("dependency %s (chart %s %s) is missing from charts/: helm install refuses the chart; run helm dependency update (or helm dependency build) and package the chart with its dependencies", name, chartName, req.Version)}
		}
	}
	return nil
}

// render renders the chart with the user values (injected values
// included) as a Helm install would: dependencies processed, values
// coalesced with the defaults, .Release set like kcm's HelmRelease.
func (s *chartSource) render(user map[string]any, release, namespace string) rendering {
	ch, err := s.withDependencies(user)
	if err != nil {
		return rendering{err: &findings.Finding{File: "Chart.yaml", Message: "dependencies: " + err.Error()}}
	}
	if f := s.missingDependency(ch); f != nil {
		return rendering{err: f}
	}
	opts := chartutil.ReleaseOptions{Name: release, Namespace: namespace, Revision: 1, IsInstall: true}
	// Schema validation is the VALUES rules' business.
	vals, err := chartutil.ToRenderValuesWithSchemaValidation(ch, user, opts, chartutil.DefaultCapabilities, true)
	if err != nil {
		return rendering{err: &findings.Finding{File: "values.yaml", Message: err.Error()}}
	}
	var r rendering
	if v, ok := vals["Values"].(chartutil.Values); ok {
		r.values = v.AsMap()
	}
	out, err := engine.Engine{}.Render(ch, vals)
	if err != nil {
		f := renderErrorFinding(err, ch.Name())
		f.File = s.realPath(f.File)
		r.err = &f
		return r
	}
	prefix := ch.Name() + "/"
	names := slices.Sorted(maps.Keys(out))
	for _, name := range names {
		file := s.realPath(strings.TrimPrefix(name, prefix))
		if path := strings.Split(file, "/"); path[len(path)-1] == "NOTES.txt" {
			continue
		}
		r.docs = append(r.docs, splitDocs(file, out[name])...)
	}
	return r
}

// Helm's engine reports "parse error at (chart/templates/x.yaml:3): ...",
// "execution error at (chart/templates/x.yaml:12:5): ..." or Go's
// "template: chart/templates/x.yaml:12:5: executing ...".
var renderLocRE = regexp.MustCompile(`(?:template: |\()([^\s():]+):(\d+)(?::\d+)?`)

func renderErrorFinding(err error, chartName string) findings.Finding {
	msg := err.Error()
	f := findings.Finding{Message: msg}
	if m := renderLocRE.FindStringSubmatch(msg); m != nil {
		f.File = strings.TrimPrefix(m[1], chartName+"/")
		f.Line, _ = strconv.Atoi(m[2])
	}
	return f
}

// docSep splits a rendered template into documents as Helm's
// releaseutil.SplitManifests does.
var docSep = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

func splitDocs(file, content string) []renderedDoc {
	var out []renderedDoc
	for i, part := range docSep.Split(content, -1) {
		if strings.TrimSpace(part) == "" {
			continue
		}
		d := renderedDoc{template: file, index: i}
		obj, err := parseObject(part)
		switch {
		case err != nil:
			d.err = err.Error()
		case obj == nil:
			continue // only comments
		default:
			d.obj = obj
		}
		out = append(out, d)
	}
	return out
}

// parseObject parses one rendered document. JSON numbers are decoded the
// way the API server decodes them (integers as int64).
func parseObject(doc string) (*unstructured.Unstructured, error) {
	js, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		return nil, fmt.Errorf("does not parse: %v", err)
	}
	var v any
	if err := utiljson.Unmarshal(js, &v); err != nil {
		return nil, fmt.Errorf("does not parse: %v", err)
	}
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("is not an object (a YAML map) but %s", describeValue(v))
	}
	u := &unstructured.Unstructured{Object: m}
	var missing []string
	if s, _ := m["apiVersion"].(string); s == "" {
		missing = append(missing, "apiVersion")
	}
	if s, _ := m["kind"].(string); s == "" {
		missing = append(missing, "kind")
	}
	if u.GetName() == "" && u.GetGenerateName() == "" {
		missing = append(missing, "metadata.name")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("is not a Kubernetes object: no %s", strings.Join(missing, ", "))
	}
	return u, nil
}

func describeValue(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	default:
		return "a number"
	}
}

// objectName names an object in findings: "group/version Kind name".
func objectName(u *unstructured.Unstructured) string {
	name := u.GetName()
	if name == "" {
		name = u.GetGenerateName() + "*"
	}
	return u.GetAPIVersion() + " " + u.GetKind() + " " + name
}

// chartMap is the chart metadata policies see.
func chartMap(md *chart.Metadata) map[string]any {
	ann := map[string]any{}
	for k, v := range md.Annotations {
		ann[k] = v
	}
	kw := make([]any, len(md.Keywords))
	for i, k := range md.Keywords {
		kw[i] = k
	}
	return map[string]any{
		"name":        md.Name,
		"version":     md.Version,
		"appVersion":  md.AppVersion,
		"description": md.Description,
		"type":        md.Type,
		"annotations": ann,
		"keywords":    kw,
	}
}
