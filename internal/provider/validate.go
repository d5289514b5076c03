package provider

import (
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
)

// Target is what the provider is validated for.
type Target string

// Targets.
const (
	// TargetK0rdent checks what k0rdent needs on top of the CAPI contract
	// (the default).
	TargetK0rdent Target = "k0rdent"
	// TargetCAPI checks the Cluster API contract alone.
	TargetCAPI Target = "capi"
)

// Options tune Validate.
type Options struct {
	// Paths are the provider's files and folders (Check loads them;
	// Validate is given them loaded).
	Paths []string
	// Render says how Check renders the charts among Paths.
	Render RenderOptions
	// Target is k0rdent (default) or capi.
	Target Target
	// Disable lists rule IDs not to report.
	Disable []string
	// Registries allowed for controller images (SEC105); empty: not checked.
	Registries []string
	// CoreContracts are the contract versions the core cluster-api
	// ProviderTemplate exposes (default: kcm v1.11.4's, v1beta1 and v1beta2).
	CoreContracts []string
}

// DefaultCoreContracts are the CAPI contracts of the cluster-api
// ProviderTemplate kcm v1.11.4 ships (templates/provider/cluster-api,
// Chart.yaml annotations cluster.x-k8s.io/v1beta1 and /v1beta2).
var DefaultCoreContracts = []string{"v1beta1", "v1beta2"}

// Result is what Validate found: the report of findings (Kind
// "provider", Name the inputs), and what the checks learnt about the
// provider.
type Result struct {
	*findings.Report
	// Resources lists the contract resources found, by role.
	Resources []Resource `json:"resources"`
	// Variables are the clusterctl variables of components files, those
	// without a default first: the inputs users must provide.
	Variables []Variable `json:"variables,omitempty"`
}

// Resource is a contract resource of the inputs.
type Resource struct {
	Kind     string `json:"kind"`
	Group    string `json:"group"`
	Role     Role   `json:"role"`
	Contract string `json:"contract,omitempty"`
	Version  string `json:"version,omitempty"`
	File     string `json:"file"`
	Line     int    `json:"line"`
}

// Validate checks a loaded set of provider inputs.
func Validate(s *Set, opts Options) *Result {
	if opts.Target == "" {
		opts.Target = TargetK0rdent
	}
	if len(opts.CoreContracts) == 0 {
		opts.CoreContracts = DefaultCoreContracts
	}
	c := newChecker(s, opts)
	for _, ch := range s.Charts {
		if ch.RenderError != nil {
			c.add(*ch.RenderError)
		}
	}
	c.checkCRDs()
	c.checkRBAC()
	c.checkClusterctl()
	c.checkK0rdent()
	c.checkSecurity()
	res := &Result{Report: &findings.Report{Kind: "provider", Name: strings.Join(s.Inputs, " "), Findings: c.finish()}, Variables: c.variables}
	for _, d := range c.crds {
		if d.role == RoleNone {
			continue
		}
		res.Resources = append(res.Resources, Resource{Kind: d.kind, Group: d.group, Role: d.role,
			Contract: d.contract.Contract, Version: d.contract.Version, File: d.obj.File, Line: d.obj.Root.Line})
	}
	return res
}

// checker runs the rules over one set.
type checker struct {
	set   *Set
	opts  Options
	found []findings.Finding

	crds      []*crd
	byGK      map[string]*crd // group/kind
	variables []Variable
}

func newChecker(s *Set, opts Options) *checker {
	c := &checker{set: s, opts: opts, byGK: map[string]*crd{}}
	for _, o := range s.CRDs() {
		d := readCRD(o)
		c.crds = append(c.crds, d)
		c.byGK[d.group+"/"+d.kind] = d
	}
	for _, d := range c.crds {
		_, hasTemplate := c.byGK[d.group+"/"+d.kind+"Template"]
		_, v := d.readVersion()
		pid, _ := prop(v, "spec", "providerID")
		ready, _ := prop(v, "status", "ready")
		init, _ := prop(v, "status", "initialization")
		d.role = roleOf(d.group, d.kind, d.hasContractKey, hasTemplate, pid != nil || ready != nil || init != nil)
	}
	return c
}

// add records a finding with the rule's default severity unless set.
func (c *checker) add(f findings.Finding) {
	if f.Severity == "" {
		f.Severity = severityOf(f.Rule)
	}
	c.found = append(c.found, f)
}

// at records a finding about the field at p of object o.
func (c *checker) at(rule string, o *Object, p findings.Path, msg, hint string) {
	c.add(findings.Finding{Rule: rule, File: o.File, Line: o.line(p), Path: p.String(), Object: o.ID(), Message: msg, Hint: hint})
}

func (c *checker) finish() []findings.Finding {
	return Registry.Finish(c.found, c.opts.Disable)
}

// providerGroups are the API groups of the provider's own CRDs.
func (c *checker) providerGroups() []string {
	var out []string
	for _, d := range c.crds {
		if !slices.Contains(out, d.group) {
			out = append(out, d.group)
		}
	}
	return out
}
