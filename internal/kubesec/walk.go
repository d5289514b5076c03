package kubesec

import (
	"slices"

	"github.com/k0rdent/kbook/internal/findings"
)

// Walk visits the fields of an object depth first, map keys in sorted
// order, leaving out its top-level metadata and status. visit gets the
// field's path (spec.template.spec.containers[0].image), its key and its
// value; it returns true when the walk should not go below that field.
// List items are not visited themselves, only walked into.
func Walk(obj map[string]any, visit func(p findings.Path, key string, v any) (skip bool)) {
	var walk func(v any, p findings.Path)
	walk = func(v any, p findings.Path) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				if len(p) == 0 && (k == "metadata" || k == "status") {
					continue
				}
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				kp := p.Child(k)
				if !visit(kp, k, v[k]) {
					walk(v[k], kp)
				}
			}
		case []any:
			for i, e := range v {
				walk(e, p.Child(i))
			}
		}
	}
	walk(obj, nil)
}

// nested returns the value at keys below m, or nil.
func nested(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// strings returns the string items of a list value.
func stringList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
