package k0rdent

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// FindCondition returns the entry of u's status.conditions whose type is
// typ (its fields as the API server sent them), and whether u has one.
func FindCondition(u *unstructured.Unstructured, typ string) (map[string]any, bool) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m, true
		}
	}
	return nil, false
}
