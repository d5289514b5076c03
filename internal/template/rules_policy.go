package template

import (
	"fmt"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/policy"
)

// checkObjectPolicies runs the organisation policies' object rules on
// every rendered object. A violation is a finding with the policy rule's
// ID and severity, at the template that rendered the object.
func (c *checker) checkObjectPolicies(rs *renderedSet) {
	if len(c.opts.Policies) == 0 {
		return
	}
	chart := chartMap(c.src.chart.Metadata)
	for _, d := range rs.objs {
		for _, p := range c.opts.Policies {
			for _, v := range p.CheckObject(d.obj.Object, chart, rs.values) {
				f := c.objFinding(v.Rule.ID, rs, d, "", policyMessage(p, v))
				f.Severity = v.Rule.Severity
				c.add(f)
			}
		}
	}
}

// checkChartPolicies runs the policies' chart rules once, with the
// default values (and kcm's injected ones), at Chart.yaml.
func (c *checker) checkChartPolicies() {
	if len(c.opts.Policies) == 0 {
		return
	}
	chart := chartMap(c.src.chart.Metadata)
	values := c.merged(&valueSet{name: defaultsName})
	for _, p := range c.opts.Policies {
		for _, v := range p.CheckChart(chart, values) {
			c.add(findings.Finding{Rule: v.Rule.ID, Severity: v.Rule.Severity, File: "Chart.yaml", Line: 1,
				Config: defaultsName, Message: policyMessage(p, v)})
		}
	}
}

func policyMessage(p *policy.Policy, v policy.Violation) string {
	return fmt.Sprintf("%s (policy %s, %s:%d)", v.Message, p.Name, p.File, v.Rule.Line)
}
