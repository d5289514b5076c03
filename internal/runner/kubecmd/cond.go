package kubecmd

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/jsonpath"
)

// condKind is what an await waits for.
type condKind int

const (
	condCondition condKind = iota + 1 // a status.conditions entry has a status
	condJSONPath                      // a JSONPath exists or has a value
	condDelete                        // the object is gone
	condCreate                        // the object exists
)

// condition is a parsed --for value.
type condition struct {
	kind condKind
	// text is the condition as given, for messages.
	text string
	// For condCondition: the condition type and wanted status, both
	// compared case-insensitively as kubectl does.
	name, status string
	// For condJSONPath: the normalised expression ({.status.valid}), the
	// wanted value and whether any value will do.
	path     string
	value    string
	anyValue bool
	jp       *jsonpath.JSONPath
}

// forSyntax is the --for syntax, for error messages.
const forSyntax = "--for=condition=NAME[=VALUE] | --for=jsonpath='{PATH}'[=VALUE] | --for=delete | --for=create"

// parseCondition parses the value of --for as kubectl wait does:
// delete, create, condition=NAME[=VALUE] (VALUE defaults to True) or
// jsonpath=EXPR[=VALUE] (without VALUE: the path must exist). EXPR may be
// given as {.a.b}, {a.b}, .a.b or a.b; quotes around EXPR and VALUE are
// removed (testscript does not strip them inside a word).
func parseCondition(s string) (condition, error) {
	lower := strings.ToLower(s)
	switch {
	case s == "":
		return condition{}, fmt.Errorf("--for needs a condition: %s", forSyntax)
	case lower == "delete":
		return condition{kind: condDelete, text: "delete"}, nil
	case lower == "create":
		return condition{kind: condCreate, text: "create"}, nil
	case strings.HasPrefix(lower, "condition="):
		rest := s[len("condition="):]
		name, status, hasStatus := strings.Cut(rest, "=")
		name = strings.Trim(name, `'"`)
		if name == "" {
			return condition{}, fmt.Errorf("--for=%s: missing condition name, as in --for=condition=Ready", s)
		}
		if hasStatus {
			status = strings.Trim(status, `'"`)
			if status == "" {
				return condition{}, fmt.Errorf("--for=%s: missing condition value after '=', as in --for=condition=Ready=False", s)
			}
		} else {
			status = "True"
		}
		return condition{kind: condCondition, text: s, name: name, status: status}, nil
	case strings.HasPrefix(lower, "jsonpath="):
		return parseJSONPathCondition(s, s[len("jsonpath="):])
	}
	return condition{}, fmt.Errorf("unrecognized condition %q: use %s", s, forSyntax)
}

// relaxedJSONPath is kubectl's pattern for "{.a.b}", "{a.b}", ".a.b", "a.b".
var relaxedJSONPath = regexp.MustCompile(`^\{\.?([^{}]+)\}$|^\.?([^{}]+)$`)

func parseJSONPathCondition(s, input string) (condition, error) {
	parts := splitJSONPathInput(input)
	if len(parts) > 2 {
		return condition{}, fmt.Errorf("--for=%s: too many '=': use --for=jsonpath='{.status.phase}'=Active, or '==' inside a filter", s)
	}
	expr := strings.Trim(parts[0], `'"`)
	m := relaxedJSONPath.FindStringSubmatch(expr)
	if expr == "" || m == nil {
		return condition{}, fmt.Errorf("--for=%s: bad JSONPath %q: expected {.a.b}, {a.b}, .a.b or a.b", s, expr)
	}
	field := m[1]
	if field == "" {
		field = m[2]
	}
	path := "{." + field + "}"
	jp := jsonpath.New("await").AllowMissingKeys(true)
	if err := jp.Parse(path); err != nil {
		return condition{}, fmt.Errorf("--for=%s: bad JSONPath %s: %w", s, path, err)
	}
	c := condition{kind: condJSONPath, path: path, jp: jp, anyValue: true}
	c.text = "jsonpath=" + path
	if len(parts) == 2 {
		c.value = strings.Trim(parts[1], `'"`)
		if c.value == "" {
			return condition{}, fmt.Errorf("--for=%s: missing value after '=', as in --for=jsonpath='{.status.phase}'=Active (leave out '=' to wait for the path to exist)", s)
		}
		c.anyValue = false
		c.text += "=" + c.value
	}
	return c, nil
}

// splitJSONPathInput splits on single '=', keeping '==' (kubectl's
// splitJSONPathInput): "{.a[?(@.x=="y")]}=z" gives two parts.
func splitJSONPathInput(input string) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(input); i++ {
		if input[i] == '=' {
			if i+1 < len(input) && input[i+1] == '=' {
				b.WriteString("==")
				i++
				continue
			}
			out = append(out, b.String())
			b.Reset()
			continue
		}
		b.WriteByte(input[i])
	}
	return append(out, b.String())
}

// check evaluates the condition on obj (nil: the object does not exist) and
// returns whether it is met and, for messages, what was seen.
func (c condition) check(obj *unstructured.Unstructured) (met bool, seen string) {
	switch c.kind {
	case condDelete:
		if obj == nil {
			return true, "not found"
		}
		return false, describeExisting(obj)
	case condCreate:
		if obj == nil {
			return false, "not found"
		}
		return true, "exists"
	}
	if obj == nil {
		return false, "not found"
	}
	if c.kind == condCondition {
		return c.checkCondition(obj)
	}
	return c.checkJSONPath(obj)
}

// describeExisting says why an object that should be gone is still there.
func describeExisting(obj *unstructured.Unstructured) string {
	ts := obj.GetDeletionTimestamp()
	if ts == nil {
		return "still exists"
	}
	s := "still exists, being deleted since " + ts.UTC().Format("15:04:05Z")
	if f := obj.GetFinalizers(); len(f) > 0 {
		s += ", waiting for finalizers " + strings.Join(f, ", ")
	}
	return s
}

func (c condition) checkCondition(obj *unstructured.Unstructured) (bool, string) {
	conds, found, err := unstructured.NestedSlice(obj.Object, "status", "conditions")
	if err != nil {
		return false, fmt.Sprintf("status.conditions is not a list: %v", err)
	}
	if !found || len(conds) == 0 {
		return false, "no status.conditions"
	}
	var all []string
	for _, raw := range conds {
		cond, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		typ, _ := cond["type"].(string)
		status, _ := cond["status"].(string)
		all = append(all, typ+"="+status)
		if !strings.EqualFold(typ, c.name) {
			continue
		}
		seen := describeCondition(cond)
		if gen, ok, _ := unstructured.NestedInt64(obj.Object, "metadata", "generation"); ok {
			if og, ok := observedGeneration(obj, cond); ok && og < gen {
				return false, fmt.Sprintf("%s, but for observedGeneration %d < generation %d", seen, og, gen)
			}
		}
		return strings.EqualFold(status, c.status), seen
	}
	return false, fmt.Sprintf("no %s condition (has %s)", c.name, strings.Join(all, ", "))
}

// describeCondition formats a status.conditions entry:
// Ready=False (reason: X, message: "y").
func describeCondition(cond map[string]any) string {
	typ, _ := cond["type"].(string)
	status, _ := cond["status"].(string)
	s := typ + "=" + status
	var extra []string
	if r, _ := cond["reason"].(string); r != "" {
		extra = append(extra, "reason: "+r)
	}
	if m, _ := cond["message"].(string); m != "" {
		extra = append(extra, fmt.Sprintf("message: %q", m))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// observedGeneration is kubectl's getObservedGeneration: the condition's
// own, else status.observedGeneration.
func observedGeneration(obj *unstructured.Unstructured, cond map[string]any) (int64, bool) {
	if og, ok, _ := unstructured.NestedInt64(cond, "observedGeneration"); ok {
		return og, true
	}
	og, ok, _ := unstructured.NestedInt64(obj.Object, "status", "observedGeneration")
	return og, ok
}

func (c condition) checkJSONPath(obj *unstructured.Unstructured) (bool, string) {
	results, err := c.jp.FindResults(obj.Object)
	if err != nil {
		return false, fmt.Sprintf("%s: %v", c.path, err)
	}
	if len(results) == 0 || len(results[0]) == 0 {
		return false, c.path + " not found"
	}
	if len(results) > 1 || len(results[0]) > 1 {
		return false, c.path + " matches more than one value"
	}
	v := results[0][0]
	if c.anyValue {
		return true, c.path + " exists"
	}
	got, err := jsonPathScalar(v)
	if err != nil {
		return false, fmt.Sprintf("%s: %v", c.path, err)
	}
	return strings.TrimSpace(got) == strings.TrimSpace(c.value), fmt.Sprintf("%s = %s", c.path, got)
}

// jsonPathScalar formats a JSONPath result for comparison with the wanted
// value as kubectl does (fmt's %v); maps and lists cannot be compared.
func jsonPathScalar(v reflect.Value) (string, error) {
	if !v.IsValid() {
		return "", errors.New("no value")
	}
	switch x := v.Interface().(type) {
	case map[string]any:
		return "", errors.New("is a map; give a path to a single value")
	case []any:
		return "", errors.New("is a list; give a path to a single value")
	case nil:
		return "null", nil
	default:
		return fmt.Sprintf("%v", x), nil
	}
}
