package kubesec

import (
	"slices"

	"github.com/k0rdent/kbook/internal/findings"
)

// PolicyRule is one rule of a Role or ClusterRole.
type PolicyRule struct {
	// Path is the rule's position: rules[2].
	Path                                       findings.Path
	APIGroups, Resources, Verbs, ResourceNames []string
}

// Rules returns the rules of a Role or ClusterRole object.
func Rules(role map[string]any) []PolicyRule {
	l, _ := role["rules"].([]any)
	out := make([]PolicyRule, 0, len(l))
	for i, e := range l {
		m, _ := e.(map[string]any)
		out = append(out, PolicyRule{Path: findings.Path{"rules", i},
			APIGroups: stringList(m["apiGroups"]), Resources: stringList(m["resources"]),
			Verbs: stringList(m["verbs"]), ResourceNames: stringList(m["resourceNames"])})
	}
	return out
}

// Grants reports whether the rule allows verb on every object of
// group/resource (a rule limited to resourceNames does not).
func (r PolicyRule) Grants(group, resource, verb string) bool {
	return len(r.ResourceNames) == 0 && Matches(r.APIGroups, group) && Matches(r.Resources, resource) && Matches(r.Verbs, verb)
}

// Matches tells whether a rule's list (of groups, resources or verbs)
// covers v: it lists v or *.
func Matches(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}
