package template

import (
	"cmp"
	"slices"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/policy"
	"github.com/k0rdent/kbook/internal/schema"
)

// ChartOptions tune ValidateChart.
type ChartOptions struct {
	// Config is a file holding a ClusterDeployment (its spec.config is
	// used) or a plain values map, validated and rendered in addition to
	// the defaults and the chart's ci/*.yaml files.
	Config string
	// Schemas validates rendered objects against CRDs; nil reports a
	// single SCHEMA001 info.
	Schemas *schema.Validator
	// NoRelease says why the k0rdent release's CRDs are not among
	// Schemas when they should have been (SCHEMA001 reports it).
	NoRelease string
	// Policies are organisation policies checked against the chart and
	// every rendered object.
	Policies []*policy.Policy
	// Registries allowed for images (SEC006); empty means global.registry
	// from the values, when set.
	Registries []string
	// ReleaseName and Namespace stand for the ClusterDeployment's name and
	// namespace (DefaultReleaseName, DefaultNamespace when empty).
	ReleaseName, Namespace string
	// Disable lists rule IDs (registry or policy rule IDs) not to report.
	Disable []string
}

// ValidateChart checks the chart at path (a directory or a .tgz) and returns
// its report (Kind "chart", Name and Base the path, Default "defaults").
// The error, a findings.InputError, is for a chart path or config file
// that cannot be read (or a config that does not parse); everything else
// is a finding, a chart Helm cannot load included (CHART001, an Input
// rule: Registry.ExitCode is then ExitBadInput).
func ValidateChart(path string, opts ChartOptions) (*findings.Report, error) {
	res := &findings.Report{Kind: "chart", Name: path, Base: path, Default: defaultsName, Findings: []findings.Finding{}}
	if opts.Config != "" {
		res.Given = []string{opts.Config}
	}
	opts.ReleaseName = cmp.Or(opts.ReleaseName, DefaultReleaseName)
	opts.Namespace = cmp.Or(opts.Namespace, DefaultNamespace)

	src, lf, err := loadChart(path)
	if err != nil {
		return nil, err
	}
	c := &checker{opts: opts, src: src}
	if lf != nil {
		c.add(*lf)
		res.Findings = c.finish()
		return res, nil
	}

	var config *valueSet
	if opts.Config != "" {
		vs, err := loadConfig(opts.Config)
		if err != nil {
			return nil, err
		}
		config = vs
	}

	finishLint := c.startLint()
	c.checkChart()
	if why := providerChart(src); why != "" {
		// A ProviderTemplate chart: the Chart rules apply, the
		// ClusterTemplate rules do not.
		c.add(findings.Finding{Rule: ruleProviderChart, File: "Chart.yaml", Line: 1,
			Message: "this is a ProviderTemplate chart (" + why + "), not a ClusterTemplate chart: only the Chart rules apply here",
			Hint:    "check provider charts with kbook provider validate"})
		finishLint()
		res.Findings = c.finish()
		return res, nil
	}
	c.checkK0rdent()
	sets := c.valueSets(config)
	c.checkValues(sets)
	c.checkValueReads()
	c.checkTemplateSources()
	c.rendering = true
	c.checkRenderings(sets)
	c.checkChartPolicies()
	finishLint()
	res.Findings = c.finish()
	return res, nil
}

// checker runs the rules over one chart.
type checker struct {
	opts  ChartOptions
	src   *chartSource
	found []findings.Finding

	providers    []string // from cluster.x-k8s.io/provider, nil when missing
	providersSet bool
	values       valuesChecker
	chartBroken  bool // a CHART00x rule fired on Chart.yaml
	warnedNoCRDs bool // SCHEMA001 is reported once
	// contractsChecked: K0RDENT007 ran on a rendering.
	contractsChecked bool
	schemaBroken     bool // VALUES002 fired

	calls       *templateCallSet // templateCalls, parsed once
	renderedAny bool             // a value set rendered
	rendering   bool             // rendering was attempted
}

type templateCallSet struct {
	lookups   []lookupCall
	requireds []requiredCall
	reads     []valueRead
}

// templateCalls returns the lookup and required calls of the chart's
// templates, parsing them on first use.
func (c *checker) templateCalls() ([]lookupCall, []requiredCall) {
	c.parseCalls()
	return c.calls.lookups, c.calls.requireds
}

// valueReads returns the values the chart's own templates read.
func (c *checker) valueReads() []valueRead {
	c.parseCalls()
	return c.calls.reads
}

func (c *checker) parseCalls() {
	if c.calls == nil {
		l, r, v := templateCalls(c.src.chart, c.src.realPath)
		c.calls = &templateCallSet{l, r, v}
	}
}

// add records a finding, with the rule's default severity unless it has
// one.
func (c *checker) add(f findings.Finding) {
	if f.Severity == "" {
		f.Severity = severityOf(f.Rule)
	}
	c.found = append(c.found, f)
}

// finish drops disabled rules and repeats, and sorts.
func (c *checker) finish() []findings.Finding {
	disable := c.opts.Disable
	if !c.renderedAny && c.rendering {
		// A chart that renders nothing passes no rendering rule: keep
		// RENDER001 even when disabled.
		disable = slices.DeleteFunc(slices.Clone(disable), func(id string) bool { return id == ruleRender })
	}
	return Registry.Finish(c.found, disable)
}

// valueSets lists what the chart is rendered with: the defaults, each
// ci/*.yaml, then ChartOptions.Config.
func (c *checker) valueSets(config *valueSet) []*valueSet {
	sets := []*valueSet{{name: defaultsName, file: "values.yaml", node: c.src.node("values.yaml")}}
	for _, name := range c.src.ciFiles() {
		vals, n, f := readValues(name, c.src.file(name))
		if f != nil {
			f.Rule, f.Config = ruleCIValuesInvalid, name
			c.add(*f)
			continue
		}
		sets = append(sets, &valueSet{name: name, file: name, values: vals, node: n})
	}
	if config != nil {
		sets = append(sets, config)
	}
	return sets
}

// merged coalesces a value set over the chart's defaults with kcm's
// injected values, as the install would.
func (c *checker) merged(vs *valueSet) map[string]any {
	vals, _ := c.mergedWithChart(vs)
	return vals
}

// mergedWithChart is merged, with the chart its dependencies were
// processed for.
func (c *checker) mergedWithChart(vs *valueSet) (map[string]any, *chart.Chart) {
	user := injectValues(vs.values, c.src.chart.Values, c.opts.Namespace)
	ch, err := c.src.withDependencies(user)
	if err != nil {
		ch = c.src.chart
	}
	vals, err := chartutil.CoalesceValues(ch, user)
	if err != nil {
		return user, ch
	}
	return vals.AsMap(), ch
}
