package template

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/helmvalues"
)

// A template's defaults often leave the values a user must give empty
// (region: "", flavor: "", filter: {}), and the providers' CRDs reject the
// empty field the template renders from them. That is missing user input,
// not a broken chart: the SCHEMA rules tell one from the other by tracing.
//
// A violation of the CRD schema is missing user input when
//
//  1. the field it is about is empty in the rendered object ("", {}, [] or
//     absent), and
//  2. rendering again with a distinct marker in place of every empty value
//     of the values (kcm's injected values aside) puts the marker of values
//     path P into that very field: the field is rendered from P, which the
//     value set leaves empty.
//
// A violation inside a field that is not empty itself (a required key
// missing from a rendered object that the markers leave without it) is not
// traced: the default gives the object, and the object is incomplete.

// violation is one error of a rendered object against its CRD.
type violation struct {
	d   renderedDoc
	err *field.Error
}

// emptyMarker marks an empty value in the tracing rendering; it is a valid
// DNS label, so names built from it still render.
const emptyMarker = "kbook-empty-"

var emptyMarkerRE = regexp.MustCompile(emptyMarker + `(\d{4})`)

// maxMarkers bounds the values marked in one tracing rendering.
const maxMarkers = 9999

// traceEmptyInputs returns, for each violation, the values paths its field
// is rendered from when the violation is missing user input (see above),
// else nil.
func (c *checker) traceEmptyInputs(rs *renderedSet, vios []violation) [][]vpath {
	out := make([][]vpath, len(vios))
	fields := make([]vpath, len(vios))
	traceable := false
	for i, v := range vios {
		p, ok := parseFieldPath(fieldPath(v.err))
		if !ok || len(p) == 0 {
			continue
		}
		if val, _ := fieldAt(v.d.obj.Object, p); isEmptyValue(val) {
			fields[i], traceable = p, true
		}
	}
	if !traceable || rs.values == nil {
		return out
	}
	docs, markers := c.markedRendering(rs.values, true)
	if docs == nil {
		// A marker of a map or list broke the rendering: strings only.
		docs, markers = c.markedRendering(rs.values, false)
	}
	if docs == nil {
		return out
	}
	for i, v := range vios {
		if fields[i] == nil {
			continue
		}
		m := pairKind(docs, v.d)
		if m == nil {
			continue
		}
		val, ok := fieldAt(m.obj.Object, fields[i])
		if !ok {
			continue
		}
		seen := map[int]bool{}
		for _, n := range markersIn(val) {
			if n < len(markers) && !seen[n] {
				seen[n] = true
				out[i] = append(out[i], markers[n])
			}
		}
		slices.SortFunc(out[i], func(a, b vpath) int { return strings.Compare(a.String(), b.String()) })
	}
	return out
}

// markedRendering renders the chart with a marker in place of every empty
// value of vals (strings, and with collections also empty maps and lists
// whose item type the values schema gives), and returns the rendered
// documents and the marked paths by marker number; nil when it does not
// render.
func (c *checker) markedRendering(vals map[string]any, collections bool) ([]renderedDoc, []vpath) {
	marked := helmvalues.DeepCopy(vals)
	var paths []vpath
	next := func(p vpath) string {
		paths = append(paths, p)
		return fmt.Sprintf("%s%04d", emptyMarker, len(paths)-1)
	}
	var walk func(v any, p vpath) any
	walk = func(v any, p vpath) any {
		if len(paths) >= maxMarkers {
			return v
		}
		switch v := v.(type) {
		case string:
			if v == "" {
				return next(p)
			}
		case map[string]any:
			if len(v) == 0 {
				if collections {
					m := next(p)
					return map[string]any{m: m}
				}
				return v
			}
			for _, k := range sortedKeys(v) {
				if len(p) == 0 && slices.Contains(injectedKeys, k) {
					continue
				}
				v[k] = walk(v[k], p.Child(k))
			}
		case []any:
			if len(v) == 0 {
				if !collections {
					return v
				}
				items, _ := c.valuesSchemaAt(p)["items"].(map[string]any)
				switch items["type"] {
				case "string":
					return []any{next(p)}
				case "object":
					m := next(p)
					return []any{map[string]any{m: m}}
				}
				return v
			}
			for i := range v {
				v[i] = walk(v[i], p.Child(i))
			}
		}
		return v
	}
	walk(marked, nil)
	if len(paths) == 0 {
		return nil, nil
	}
	r := c.src.render(injectValues(marked, c.src.chart.Values, c.opts.Namespace), c.opts.ReleaseName, c.opts.Namespace)
	if r.err != nil {
		return nil, nil
	}
	return r.docs, paths
}

// valuesSchemaAt is the values.schema.json subschema at a values path
// (properties and items only; nil when the schema does not say).
func (c *checker) valuesSchemaAt(p vpath) map[string]any {
	sch := c.src.schemaDoc()
	for _, s := range p {
		switch s.(type) {
		case string:
			props, _ := sch["properties"].(map[string]any)
			sch, _ = props[s.(string)].(map[string]any)
		case int:
			sch, _ = sch["items"].(map[string]any)
		}
	}
	return sch
}

// pairKind finds the document of another rendering that stands for d: the
// same template, position and kind (names may change with the values).
func pairKind(docs []renderedDoc, d renderedDoc) *renderedDoc {
	o := pair(docs, d)
	if o == nil || o.obj.GroupVersionKind() != d.obj.GroupVersionKind() {
		return nil
	}
	return o
}

// markersIn lists the marker numbers in a rendered value, keys included.
func markersIn(v any) []int {
	var out []int
	var walk func(v any)
	scan := func(s string) {
		for _, m := range emptyMarkerRE.FindAllStringSubmatch(s, -1) {
			n, _ := strconv.Atoi(m[1])
			out = append(out, n)
		}
	}
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			scan(v)
		case map[string]any:
			for k, e := range v {
				scan(k)
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// isEmptyValue reports a missing value, an empty string, map or list.
func isEmptyValue(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

// parseFieldPath reads a field path as the API server writes it:
// spec.a.b[0].c, map keys in brackets (metadata.labels[app]).
func parseFieldPath(s string) (vpath, bool) {
	var p vpath
	for s != "" {
		switch s[0] {
		case '.':
			s = s[1:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, false
			}
			key := s[1:end]
			if n, err := strconv.Atoi(key); err == nil {
				p = append(p, n)
			} else {
				p = append(p, key)
			}
			s = s[end+1:]
		default:
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			p = append(p, s[:end])
			s = s[end:]
		}
	}
	return p, true
}

// fieldAt returns the value at p in an object; ok is false when its parent
// is missing (a missing last key of a map is a nil value, ok true).
func fieldAt(obj map[string]any, p vpath) (any, bool) {
	if len(p) == 0 {
		return obj, true
	}
	parent := lookupPath(obj, p[:len(p)-1])
	switch s := p[len(p)-1].(type) {
	case string:
		if m, ok := parent.(map[string]any); ok {
			return m[s], true
		}
	case int:
		if l, ok := parent.([]any); ok && s >= 0 && s < len(l) {
			return l[s], true
		}
	}
	return nil, false
}

// inputGroup is the violations traced to the same values paths.
type inputGroup struct {
	paths []vpath
	vios  []violation
}

// reportSchemaViolations reports the violations of one rendering: missing
// user input (inputs[i] set) of the defaults as one SCHEMA004 info per
// values path, everything else as SCHEMA002 errors; in a ci/*.yaml or
// --config rendering an error says which value the set leaves empty.
func (c *checker) reportSchemaViolations(rs *renderedSet, vios []violation, inputs [][]vpath) {
	defaults := rs.vs.name == defaultsName || rs.vs.name == placeholdersName
	var groups []*inputGroup
	byKey := map[string]*inputGroup{}
	for i, v := range vios {
		f := c.objFinding(ruleSchemaViolation, rs, v.d, fieldPath(v.err), fieldErrorMessage(v.err))
		if len(inputs[i]) == 0 {
			c.add(f)
			continue
		}
		if !defaults {
			what := "ci file"
			if rs.vs.config {
				what = "config"
			}
			f.Message += fmt.Sprintf("; set %s, which this %s leaves empty", joinPaths(inputs[i], " or "), what)
			c.add(f)
			continue
		}
		key := joinPaths(inputs[i], "\x00")
		g := byKey[key]
		if g == nil {
			g = &inputGroup{paths: inputs[i]}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.vios = append(g.vios, v)
	}
	for _, g := range groups {
		c.add(c.inputFinding(rs, g))
	}
}

// inputFinding is the SCHEMA004 info of values the defaults leave empty.
func (c *checker) inputFinding(rs *renderedSet, g *inputGroup) findings.Finding {
	first := g.paths[0]
	line, _ := lineOf(rs.vs.node, first)
	// The rejections, once per kind and field.
	var rejects []string
	count := map[string]int{}
	for _, v := range g.vios {
		r := fmt.Sprintf("%s.%s: %s", v.d.obj.GetKind(), fieldPath(v.err), shortDetail(v.err))
		if count[r] == 0 {
			rejects = append(rejects, r)
		}
		count[r]++
	}
	for i, r := range rejects {
		if n := count[r]; n > 1 {
			rejects[i] = fmt.Sprintf("%s (%d objects)", r, n)
		}
	}
	f := findings.Finding{Rule: ruleSchemaInputs, File: cmp.Or(rs.vs.file, "values.yaml"), Line: max(line, 1), Path: first.String(), Config: rs.vs.name,
		Message: fmt.Sprintf("set %s in the ClusterDeployment's spec.config: the defaults leave it empty, and with the defaults alone the API server rejects %s, so the install fails after kcm accepted the ClusterDeployment",
			joinPaths(g.paths, " or "), strings.Join(rejects, "; "))}
	f.Hint = c.nonEmptyHint(g)
	return f
}

// The CRD bounds an empty value breaks, as the API server words them.
var (
	minLengthRE     = regexp.MustCompile(`at least (\d+) chars long`)
	minPropertiesRE = regexp.MustCompile(`at least (\d+) properties`)
	minItemsRE      = regexp.MustCompile(`at least (\d+) items`)
)

// nonEmptyHint suggests declaring the values non-empty in values.schema.json,
// where the schema accepts the empty default: kcm's dry run then rejects a
// ClusterDeployment without them before anything is installed. The bound
// is the CRD's where its message gives one, else 1.
func (c *checker) nonEmptyHint(g *inputGroup) string {
	if c.values.schema == nil {
		return ""
	}
	var kws []string
	for _, p := range g.paths {
		for k := range c.values.defaultErrs {
			if strings.HasPrefix(k, p.String()+"\x00") {
				return "" // the schema already rejects the default (VALUES003)
			}
		}
		kw, re := "minLength", minLengthRE
		switch lookupPath(c.src.chart.Values, p).(type) {
		case map[string]any:
			kw, re = "minProperties", minPropertiesRE
		case []any:
			kw, re = "minItems", minItemsRE
		}
		n := 1
		for _, v := range g.vios {
			if m := re.FindStringSubmatch(v.err.Detail); m != nil {
				if k, _ := strconv.Atoi(m[1]); k > n {
					n = k
				}
			}
		}
		kws = append(kws, fmt.Sprintf("%s \"%s\": %d", p, kw, n))
	}
	return "declare the value non-empty in values.schema.json (" + strings.Join(kws, ", ") + ") so that kcm's dry run rejects a ClusterDeployment without it, before anything is installed; check a real config with kbook template validate --config"
}

func joinPaths(ps []vpath, sep string) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, sep)
}

// shortDetail is a field error without its path: "should be at least 1
// chars long", "Required value".
func shortDetail(e *field.Error) string {
	d := e.Detail
	if i := strings.Index(d, " in body "); i >= 0 {
		d = d[i+len(" in body "):]
	}
	if d == "" {
		return e.Type.String()
	}
	return d
}
