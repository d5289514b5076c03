package template

import "fmt"

// walkFields visits the fields of a rendered object depth first, in key
// order, leaving out its top-level metadata and status. visit gets the
// field's path (spec.template.spec.containers[0].image), its key and value;
// it returns true when the walk should not go below that field.
func walkFields(obj any, visit func(path, key string, v any) (stop bool)) {
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(v) {
				if path == "" && (k == "metadata" || k == "status") {
					continue
				}
				p := k
				if path != "" {
					p = path + "." + k
				}
				if !visit(p, k, v[k]) {
					walk(v[k], p)
				}
			}
		case []any:
			for i, e := range v {
				walk(e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(obj, "")
}
