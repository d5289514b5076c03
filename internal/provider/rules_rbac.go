package provider

import (
	"fmt"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/kubesec"
)

// Aggregation labels: ClusterRoles with them are folded into Cluster
// API's and kcm's manager roles by the controller-manager's ClusterRole
// aggregation controller.
const (
	capiAggregateLabel    = k0rdent.CAPIAggregateToManagerLabel
	k0rdentAggregateLabel = k0rdent.AggregateToManagerLabel
)

// policyRule is one rule of a Role or ClusterRole among the inputs.
type policyRule struct {
	obj *Object
	kubesec.PolicyRule
}

func rulesOf(o *Object) []policyRule {
	var out []policyRule
	for _, r := range kubesec.Rules(o.Fields()) {
		out = append(out, policyRule{o, r})
	}
	return out
}

func (c *checker) roles(kind string) []*Object {
	return c.set.ofKind("rbac.authorization.k8s.io", kind)
}

// labelled returns the ClusterRoles with label=true.
func (c *checker) labelled(label string) []*Object {
	var out []*Object
	for _, o := range c.roles("ClusterRole") {
		if stringMap(get(o.Root, "metadata", "labels"))[label] == "true" {
			out = append(out, o)
		}
	}
	return out
}

// allows reports whether any of the roles grants every verb on group/resource.
func allows(roles []*Object, group, resource string, verbs ...string) (missing []string) {
	for _, v := range verbs {
		ok := false
		for _, o := range roles {
			for _, r := range rulesOf(o) {
				if r.Grants(group, resource, v) {
					ok = true
				}
			}
		}
		if !ok {
			missing = append(missing, v)
		}
	}
	return missing
}

var fullAccess = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

// checkRBAC: contract resources outside the CAPI groups need a ClusterRole
// aggregated to CAPI's manager role with full access (CONTRACT009).
func (c *checker) checkRBAC() {
	byGroup := map[string][]*crd{}
	var groups []string
	for _, d := range c.crds {
		if d.role == RoleNone || slices.Contains(capiGroups, d.group) {
			continue
		}
		if _, ok := byGroup[d.group]; !ok {
			groups = append(groups, d.group)
		}
		byGroup[d.group] = append(byGroup[d.group], d)
	}
	slices.Sort(groups)
	if len(groups) == 0 {
		return
	}
	hasRBAC := len(c.roles("ClusterRole")) > 0
	agg := c.labelled(capiAggregateLabel)
	for _, g := range groups {
		for _, d := range byGroup[g] {
			if !hasRBAC {
				c.add(findings.Finding{Rule: RuleAggregateToManager, Severity: findings.Warning, File: d.obj.File, Line: d.obj.line(findings.Path{"spec", "group"}), Path: "spec.group", Object: d.obj.ID(),
					Message: fmt.Sprintf("%s is in group %s, outside the groups Cluster API's manager role covers (%s), and the inputs hold no ClusterRole to check: the provider must ship a ClusterRole labelled %s: \"true\" granting Cluster API full access to it", d.kind, g, strings.Join(capiGroups, ", "), capiAggregateLabel),
					Hint:    "validate the full components YAML (CRDs and RBAC together)"})
				break
			}
			if missing := allows(agg, g, d.plural, fullAccess...); len(missing) > 0 {
				c.at(RuleAggregateToManager, d.obj, findings.Path{"spec", "group"}, fmt.Sprintf("%s is in group %s, outside the groups Cluster API's manager role covers: no ClusterRole labelled %s: \"true\" grants %s on %s, so Cluster API's controllers cannot read or own it", d.kind, g, capiAggregateLabel, strings.Join(missing, ", "), d.plural),
					fmt.Sprintf("ship a ClusterRole labelled %s: \"true\" with apiGroups [%s], resources [%s], verbs [%s]", capiAggregateLabel, g, d.plural, strings.Join(fullAccess, ", ")))
			}
		}
	}
}

// checkRBACSecurity: least privilege for the provider's own roles
// (SEC101-SEC103).
func (c *checker) checkRBACSecurity() {
	own := c.providerGroups()
	for _, kind := range []string{"ClusterRole", "Role"} {
		for _, o := range c.roles(kind) {
			if get(o.Root, "aggregationRule") != nil {
				continue // filled in by the aggregation controller
			}
			for _, r := range rulesOf(o) {
				c.checkPolicyRule(kind, r, own)
			}
		}
	}
}

func (c *checker) checkPolicyRule(kind string, r policyRule, own []string) {
	o := r.obj
	inOwn := len(r.APIGroups) > 0 && !slices.Contains(r.APIGroups, "*")
	for _, g := range r.APIGroups {
		if !slices.Contains(own, g) {
			inOwn = false
		}
	}
	if !inOwn {
		for _, f := range []struct {
			key  string
			list []string
		}{{"apiGroups", r.APIGroups}, {"resources", r.Resources}, {"verbs", r.Verbs}} {
			if i := slices.Index(f.list, "*"); i >= 0 {
				c.at(RuleRBACWildcard, o, r.Path.Child(f.key).Child(i), fmt.Sprintf("grants %s: * on %s: a wildcard outside the provider's own API groups (%s) grants whatever the cluster serves, now and later", f.key, describeGroups(r.APIGroups), strings.Join(own, ", ")),
					"list the verbs and resources the controller needs")
			}
		}
	}
	for _, v := range []string{"escalate", "bind", "impersonate"} {
		if i := slices.Index(r.Verbs, v); i >= 0 {
			c.at(RuleRBACEscalation, o, r.Path.Child("verbs").Child(i), fmt.Sprintf("grants %s: a controller with %s can give itself (or act as) any identity in the management cluster, kcm's included", v, v),
				"drop the verb: a provider controller never needs to create roles beyond its own")
		}
	}
	if kind == "ClusterRole" && kubesec.Matches(r.APIGroups, "") && kubesec.Matches(r.Resources, "secrets") && len(r.ResourceNames) == 0 {
		for _, v := range []string{"get", "list", "watch"} {
			if kubesec.Matches(r.Verbs, v) {
				c.at(RuleClusterSecrets, o, r.Path, fmt.Sprintf("can %s Secrets in every namespace: the provider can read every credential of the management cluster, kcm's and other providers' included", v),
					"where possible, read Secrets only in the namespaces of the provider's objects (a Role per namespace) or by name (resourceNames)")
				break
			}
		}
	}
}

func describeGroups(gs []string) string {
	if len(gs) == 0 {
		return "no group"
	}
	q := make([]string, len(gs))
	for i, g := range gs {
		if g == "" {
			g = `"" (core)`
		}
		q[i] = g
	}
	return strings.Join(q, ", ")
}
