package template

import (
	"fmt"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
)

// checkValueReads runs VALUES011: every values path the chart's own
// templates read is defined by values.yaml or values.schema.json (or is
// one kcm injects, or belongs to a dependency). A read that is tested
// rather than used (if, with, default, hasKey, required) is an optional
// value: reported only when a defined value of a close name suggests a
// typo.
func (c *checker) checkValueReads() {
	schemaDoc := c.src.schemaDoc()
	deps := map[string]bool{}
	for _, d := range c.src.chart.Metadata.Dependencies {
		deps[d.Name] = true
		if d.Alias != "" {
			deps[d.Alias] = true
		}
	}
	seen := map[string]bool{}
	for _, r := range c.valueReads() {
		if slices.Contains(injectedKeys, fmt.Sprint(r.path[0])) || deps[fmt.Sprint(r.path[0])] {
			continue
		}
		at, known := undefinedAt(c.src.chart.Values, schemaDoc, r.path)
		if at < 0 {
			continue
		}
		missing := r.path[:at+1]
		key := fmt.Sprintf("%s:%d:%s", r.file, r.line, missing)
		if seen[key] {
			continue
		}
		seen[key] = true
		name := fmt.Sprint(r.path[at])
		near := closest(name, known)
		if r.guarded && near == "" {
			continue
		}
		parent := "the top level"
		if at > 0 {
			parent = r.path[:at].String()
		}
		msg := fmt.Sprintf("reads .Values.%s, which neither values.yaml nor values.schema.json defines (no %q under %s): it renders as empty (null), whatever a ClusterDeployment's config sets there unless the key is spelt so", r.path, name, parent)
		hint := "define it in values.yaml (and values.schema.json), or fix the name"
		if near != "" {
			nearPath := append(slices.Clone(r.path[:at]), near)
			msg = fmt.Sprintf("reads .Values.%s, which neither values.yaml nor values.schema.json defines: did you mean .Values.%s?", r.path, nearPath)
			hint = "rename it to " + nearPath.String() + ", or define " + missing.String() + " in values.yaml"
		}
		c.add(findings.Finding{Rule: ruleValueUndefined, File: r.file, Line: r.line, Path: missing.String(), Message: msg, Hint: hint})
	}
}

// undefinedAt follows p through the default values and the schema and
// returns the index of the first segment neither defines, with the keys
// both define at that level; -1 when p is defined, or reaches a value
// whose keys are free (an empty or null default, a scalar, an object
// whose schema allows other properties).
func undefinedAt(values map[string]any, schemaDoc map[string]any, p vpath) (int, []string) {
	var cur any = values
	sch := schemaDoc
	for i, seg := range p {
		key, ok := seg.(string)
		if !ok {
			return -1, nil
		}
		m, isMap := cur.(map[string]any)
		valFree := cur == nil || !isMap || len(m) == 0
		props, schemaFree := schemaProperties(schemaDoc, sch)
		var next any
		inValues := false
		if isMap {
			next, inValues = m[key]
		}
		nextSch, inSchema := props[key]
		switch {
		case inValues || inSchema:
		case sch != nil && schemaFree, valFree && sch == nil:
			return -1, nil // free-form: any key may be set
		default:
			var known []string
			for k := range m {
				known = append(known, k)
			}
			for k := range props {
				if !slices.Contains(known, k) {
					known = append(known, k)
				}
			}
			slices.Sort(known)
			return i, known
		}
		cur = next
		sch, _ = nextSch.(map[string]any) // nil: the schema says nothing below
	}
	return -1, nil
}

// schemaProperties lists the properties a JSON Schema object declares
// (through local $refs and allOf/anyOf/oneOf), and whether it leaves
// other keys free: no schema, no properties, additionalProperties not
// false, or patternProperties.
func schemaProperties(root, s map[string]any) (map[string]any, bool) {
	if s == nil {
		return nil, true
	}
	props := map[string]any{}
	free := false
	hasProps := false
	var visit func(s map[string]any, depth int)
	visit = func(s map[string]any, depth int) {
		if s == nil || depth > 8 {
			return
		}
		if ref, ok := s["$ref"].(string); ok {
			visit(resolveRef(root, ref), depth+1)
		}
		if p, ok := s["properties"].(map[string]any); ok {
			hasProps = true
			for k, v := range p {
				props[k] = v
			}
		}
		if _, ok := s["patternProperties"]; ok {
			free = true
		}
		if ap, ok := s["additionalProperties"]; ok && ap != false {
			free = true
		}
		for _, key := range []string{"allOf", "anyOf", "oneOf"} {
			if l, ok := s[key].([]any); ok {
				for _, sub := range l {
					m, _ := sub.(map[string]any)
					visit(m, depth+1)
				}
			}
		}
	}
	visit(s, 0)
	// JSON Schema allows other properties unless told otherwise, but a
	// schema that lists properties describes the keys it expects: another
	// key is most often a typo (as VALUES007 reads it).
	return props, free || !hasProps
}

// resolveRef resolves a local JSON pointer ("#/definitions/x").
func resolveRef(root map[string]any, ref string) map[string]any {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = root
	for _, part := range strings.Split(rest, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	m, _ := cur.(map[string]any)
	return m
}

// closest is the known key nearest to name by edit distance (case
// insensitive), when near enough to be a typo; "" otherwise.
func closest(name string, known []string) string {
	best, bestD := "", 0
	limit := max(1, min(3, len(name)/3)) // replica: 2
	for _, k := range known {
		d := editDistance(strings.ToLower(name), strings.ToLower(k))
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
