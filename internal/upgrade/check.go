package upgrade

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/helmvalues"
	"github.com/k0rdent/kbook/internal/inputfile"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/kubeversion"
	"github.com/k0rdent/kbook/internal/template"
)

// Side is one end of an upgrade: a template and the chart it installs.
type Side struct {
	// Template is the ClusterTemplate name; derived from the chart
	// (<chart>-<version, dots as dashes>) when empty.
	Template string
	// Chart is the chart folder or archive.
	Chart string
	// K8sVersion is the ClusterTemplate's spec.k8sVersion, if any.
	K8sVersion string
	// Status is the live ClusterTemplate's status, nil offline.
	Status *TemplateStatus
}

// TemplateStatus is what kcm reports on a ClusterTemplate.
type TemplateStatus struct {
	Valid           bool
	ValidationError string
	Providers       []string
	Contracts       map[string]string
	K8sVersion      string
	ChartName       string // status.chartRef's HelmChart name, as kcm compares it
}

// Deployment is the ClusterDeployment being upgraded.
type Deployment struct {
	Name, Namespace string
	Annotations     map[string]string
	// Config is spec.config (nil when the deployment has none).
	Config map[string]any
	// ConfigSource names where Config came from, for findings.
	ConfigSource string
	// ConfigNode is Config as read from the file ConfigSource names, for
	// the lines of findings; nil when it is no file (a live deployment).
	ConfigNode *yaml.Node
	// Services are the ServiceTemplates of spec.serviceSpec.services that
	// are not disabled.
	Services []string
	// AvailableUpgrades is status.availableUpgrades; Live reports whether
	// it was read from a management cluster.
	AvailableUpgrades []string
	Live              bool
}

// ServiceTemplate is a ServiceTemplate a deployment uses.
type ServiceTemplate struct {
	Name, Namespace string
	// Constraint is status.k8sConstraint (kcm's), else spec.k8sConstraint,
	// else the chart annotation k0rdent.mirantis.com/k8s-version-constraint.
	Constraint string
	Source     string // where it was read: file:line or the live object
}

// Exposure is what the Management (or the Credential's Region) exposes.
type Exposure struct {
	// Parent names it: "Management kcm" or "Region eu-1".
	Parent    string
	Providers []string
	// Contracts maps a provider to its CAPI contracts: contract → provider
	// versions joined by _ (status.capiContracts).
	Contracts map[string]map[string]string
}

// Input is everything Predict looks at.
type Input struct {
	From, To   Side
	Deployment Deployment
	Services   []ServiceTemplate
	// Exposure is nil when unknown (offline without a Management).
	Exposure *Exposure
	// ExposureError is kcm's answer when it cannot find what is exposed
	// (the Credential or the Management is missing).
	ExposureError string
	// AllowK8sChange lets a pinned deployment change Kubernetes version.
	AllowK8sChange bool
}

// Report is what Predict predicts.
type Report struct {
	Deployment string `json:"deployment"`
	// DeploymentAssumed is set when no ClusterDeployment was given (no
	// --config, or a plain values file): the charts are rendered under
	// kbook template render's release name and namespace.
	DeploymentAssumed bool       `json:"deploymentAssumed,omitempty"`
	From              SideReport `json:"from"`
	To                SideReport `json:"to"`
	KCM               KCMVerdict `json:"kcm"`
	Pin               *Pin       `json:"pin,omitempty"`
	// Providers are what the target template needs, against what the
	// Management (or Region) exposes; nil when that is not known.
	Providers *ProvidersReport `json:"providers,omitempty"`
	// Findings are written by findings.Write (FindingsReport), beside
	// the rest.
	Findings []findings.Finding `json:"-"`
	Rollouts []Rollout          `json:"rollouts"`
	Impacts  []Impact           `json:"impacts"`
	Objects  []ObjectDiff       `json:"objects"`
	Defaults []DefaultChange    `json:"defaultChanges"`
}

// SideReport describes one end of the upgrade.
type SideReport struct {
	Template     string             `json:"template"`
	Chart        string             `json:"chart"`
	ChartName    string             `json:"chartName"`
	ChartVersion string             `json:"chartVersion"`
	K8s          kubeversion.Source `json:"k8s"`
}

// ProvidersReport compares the providers and CAPI contracts a template
// needs with what its parent exposes (status.availableProviders and
// status.capiContracts), as kcm's webhook does.
type ProvidersReport struct {
	// Parent is "Management kcm" or "Region NAME".
	Parent string         `json:"parent"`
	Needed []ProviderNeed `json:"needed"`
}

// ProviderNeed is one provider the template needs.
type ProviderNeed struct {
	Name string `json:"name"`
	// Contract is the contract version the template names for it, if any.
	Contract string `json:"contract,omitempty"`
	Exposed  bool   `json:"exposed"`
	// Offered are the versions the parent's capiContracts list for it.
	Offered []string `json:"offered,omitempty"`
	// Satisfied is false when Contract is not among Offered.
	Satisfied bool `json:"satisfied"`
}

// KCMVerdict is what kcm's admission webhook answers to the patch.
type KCMVerdict struct {
	// Checked reports whether kcm's answer could be predicted in full
	// (live: availableUpgrades, the template's status, the Management).
	Checked bool `json:"checked"`
	// Accepts is true when kcm admits the new spec.template.
	Accepts bool `json:"accepts"`
	// Says are the webhook's errors and warnings, in its words.
	Says []string `json:"says"`
	// Unchecked says what kbook could not see offline.
	Unchecked []string `json:"unchecked,omitempty"`
}

// Hazards counts the findings that make the upgrade unsafe.
func (r *Report) Hazards() int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == findings.Error {
			n++
		}
	}
	return n
}

// chartData is a loaded chart.
type chartData struct {
	path  string
	chart *chart.Chart
	// values are the chart defaults coalesced with the config.
	values map[string]any
}

func loadSide(s Side) (*chartData, error) {
	if _, err := os.Stat(s.Chart); err != nil {
		return nil, fmt.Errorf("chart %s: %w", s.Chart, err)
	}
	if err := inputfile.CheckChart(s.Chart); err != nil {
		return nil, err
	}
	ch, err := loader.Load(s.Chart)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", s.Chart, err)
	}
	return &chartData{path: s.Chart, chart: ch}, nil
}

// Predict predicts the upgrade. The error is for input that cannot be read
// at all (a chart that does not load); everything else is a finding.
func Predict(in Input) (*Report, error) {
	from, err := loadSide(in.From)
	if err != nil {
		return nil, err
	}
	to, err := loadSide(in.To)
	if err != nil {
		return nil, err
	}
	d := in.Deployment
	assumed := d.Name == ""
	d.Name = cmp.Or(d.Name, template.DefaultReleaseName)
	d.Namespace = cmp.Or(d.Namespace, template.DefaultNamespace)
	in.Deployment = d
	c := &checker{in: in, from: from, to: to, rep: &Report{
		Deployment: d.Namespace + "/" + d.Name, DeploymentAssumed: assumed,
		Findings: []findings.Finding{}, Rollouts: []Rollout{}, Impacts: []Impact{}, Objects: []ObjectDiff{}, Defaults: []DefaultChange{},
	}}
	for _, cd := range []*chartData{from, to} {
		vals, err := chartutil.CoalesceValues(cd.chart, helmvalues.DeepCopy(d.Config))
		if err != nil {
			return nil, fmt.Errorf("chart %s: values: %w", cd.path, err)
		}
		cd.values = vals
	}
	c.rep.From = c.sideReport(in.From, from)
	c.rep.To = c.sideReport(in.To, to)
	c.render()
	c.versions()
	c.kcm()
	c.pin()
	c.services()
	c.providers()
	c.valuesChecks()
	c.objects()
	c.rep.Findings = Registry.Finish(c.rep.Findings, nil)
	return c.rep, nil
}

type checker struct {
	in       Input
	from, to *chartData
	rep      *Report
	// rendered objects, nil when the chart does not render
	oldObjs, newObjs []template.Object
	oldErr, newErr   error
	// kcmRejected is the service kcm's own constraint check fails on.
	kcmRejected string
}

// add records a finding; Predict's Registry.Finish fills in its severity.
// The messages name the objects they are about, so no finding sets Object.
func (c *checker) add(f findings.Finding) {
	c.rep.Findings = append(c.rep.Findings, f)
}

func (c *checker) sideReport(s Side, cd *chartData) SideReport {
	md := cd.chart.Metadata
	return SideReport{
		Template:     cmp.Or(s.Template, k0rdent.TemplateName(md.Name, md.Version)),
		Chart:        s.Chart,
		ChartName:    md.Name,
		ChartVersion: md.Version,
	}
}

func (c *checker) render() {
	d := c.in.Deployment
	opts := template.RenderOptions{ReleaseName: d.Name, Namespace: d.Namespace, ConfigValues: d.Config}
	if opts.ConfigValues == nil {
		opts.ConfigValues = map[string]any{}
	}
	c.oldObjs, c.oldErr = template.Render(c.from.path, opts)
	c.newObjs, c.newErr = template.Render(c.to.path, opts)
	switch {
	case c.oldErr != nil && c.newErr != nil:
		c.add(findings.Finding{Rule: ruleRenderOld, File: c.in.Deployment.ConfigSource, Message: fmt.Sprintf("neither chart renders with this config, so the objects are not compared (give the deployment's config with --config): %s: %v", c.rep.To.ChartName+" "+c.rep.To.ChartVersion, c.newErr)})
	case c.oldErr != nil:
		c.add(findings.Finding{Rule: ruleRenderOld, File: c.from.path, Message: fmt.Sprintf("the current chart %s does not render with this config, so the objects are not compared: %v", c.rep.From.ChartName+" "+c.rep.From.ChartVersion, c.oldErr)})
	case c.newErr != nil:
		c.add(findings.Finding{Rule: ruleRenderNew, File: c.to.path, KCM: kcmConfigCheck, Message: fmt.Sprintf("the target chart %s does not render with this config, which the current chart renders: %v", c.rep.To.ChartName+" "+c.rep.To.ChartVersion, c.newErr)})
	}
}

// versions finds the effective Kubernetes version of both sides and checks
// the skew policy between them.
func (c *checker) versions() {
	for _, side := range []struct {
		s   Side
		cd  *chartData
		rep *SideReport
		obj []template.Object
	}{{c.in.From, c.from, &c.rep.From, c.oldObjs}, {c.in.To, c.to, &c.rep.To, c.newObjs}} {
		spec := side.s.K8sVersion
		if spec == "" && side.s.Status != nil {
			spec = side.s.Status.K8sVersion
		}
		src, err := kubeversion.FromTemplate(spec, side.cd.chart.Metadata.Annotations, side.cd.chart.Values, c.in.Deployment.Config)
		if err != nil {
			c.add(findings.Finding{Rule: ruleVersionUnknown, Message: fmt.Sprintf("%s: %v", side.rep.Template, err), File: side.cd.path})
			continue
		}
		if src.Declared {
			// What the cluster really runs: the values, when they say.
			if actual, err := kubeversion.FromValues(side.cd.chart.Values, c.in.Deployment.Config); err == nil && !actual.Version.IsZero() && actual.Version.Compare(src.Version) != 0 {
				c.add(findings.Finding{Rule: ruleVersionMismatch, Message: fmt.Sprintf("%s declares Kubernetes %s (%s), which kcm checks, but installs %s", side.rep.Template, src.Version, src.Kind, actual), File: side.cd.path})
			}
		}
		if src.Version.IsZero() {
			if v, path, ok := renderedVersion(side.obj); ok {
				src = kubeversion.Source{Version: v, Kind: kubeversion.FromRendered, Path: path}
			}
		}
		side.rep.K8s = src
	}
	from, to := c.rep.From.K8s.Version, c.rep.To.K8s.Version
	if from.IsZero() || to.IsZero() {
		var unknown []string
		for _, s := range []SideReport{c.rep.From, c.rep.To} {
			if s.K8s.Version.IsZero() {
				unknown = append(unknown, s.Template)
			}
		}
		c.add(findings.Finding{Rule: ruleVersionUnknown, Message: fmt.Sprintf("the Kubernetes version of %s is not known (no spec.k8sVersion, k8s-version annotation, version value or control plane version): the skew policy is not checked", strings.Join(unknown, " and "))})
		return
	}
	// Both rules are about the target's version: where it is set.
	file, line := c.versionAt(c.to, c.rep.To.K8s, c.newObjs)
	for _, p := range kubeversion.CheckUpgrade(from, to) {
		rule := ruleK8sSkip
		if p.Rule != kubeversion.RuleMinorSkip {
			rule = ruleK8sDowngrade
		}
		c.add(findings.Finding{Rule: rule, File: file, Line: line, Message: p.Message})
	}
}

// controlPlaneKinds are the control plane kinds whose spec.version is the
// cluster's Kubernetes version.
func isControlPlane(o template.Object) bool {
	g := o.Unstructured.GroupVersionKind().Group
	return g == k0rdent.ControlPlaneGroup || strings.HasSuffix(o.Unstructured.GetKind(), "ControlPlane") && strings.HasSuffix(g, "."+k0rdent.CAPIGroup)
}

func renderedVersion(objs []template.Object) (kubeversion.Version, string, bool) {
	for _, o := range objs {
		if !isControlPlane(o) {
			continue
		}
		s, _, _ := nestedString(o.Unstructured.Object, "spec", "version")
		if s == "" {
			continue
		}
		if v, err := kubeversion.Parse(kubeversion.StripK0s(s)); err == nil {
			return v, o.Unstructured.GetKind() + " " + o.Unstructured.GetName() + " spec.version", true
		}
	}
	return kubeversion.Version{}, "", false
}

func nestedString(m map[string]any, path ...string) (string, bool, error) {
	var cur any = m
	for _, k := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		if cur, ok = mm[k]; !ok {
			return "", false, nil
		}
	}
	s, ok := cur.(string)
	return s, ok, nil
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
