package kubecmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// omap is a YAML mapping that remembers the order of its keys, so that
// mismatches are reported in the order the expectation was written.
type omap struct {
	keys []string
	vals map[string]any
}

func newOmap() *omap { return &omap{vals: map[string]any{}} }

func (m *omap) get(k string) (any, bool) {
	if m == nil {
		return nil, false
	}
	v, ok := m.vals[k]
	return v, ok
}

func (m *omap) set(k string, v any) {
	if _, ok := m.vals[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.vals[k] = v
}

// decodeDocuments parses a stream of YAML (or JSON) documents into ordered
// maps, skipping empty documents. Values are nil, bool, int, float64,
// string, []any or *omap.
func decodeDocuments(data []byte) ([]*omap, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*omap
	for n := 1; ; n++ {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
			node = *node.Content[0]
		}
		if node.Kind == 0 || (node.Kind == yaml.ScalarNode && node.ShortTag() == "!!null") {
			n--
			continue
		}
		v, err := fromNode(&node)
		if err != nil {
			return nil, err
		}
		m, ok := v.(*omap)
		if !ok {
			return nil, fmt.Errorf("line %d: document %d is %s, not a mapping", node.Line, n, describe(v))
		}
		docs = append(docs, m)
	}
}

// fromNode converts a YAML node to a plain value.
func fromNode(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return fromNode(n.Content[0])
	case yaml.AliasNode:
		return fromNode(n.Alias)
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool", "!!int", "!!float":
			var v any
			if err := n.Decode(&v); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
			return v, nil
		default: // !!str, !!timestamp, !!binary, custom tags: the text
			return n.Value, nil
		}
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := fromNode(c)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.MappingNode:
		m := newOmap()
		var merged []*omap
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, vn := n.Content[i], n.Content[i+1]
			v, err := fromNode(vn)
			if err != nil {
				return nil, err
			}
			if k.ShortTag() == "!!merge" {
				switch x := v.(type) {
				case *omap:
					merged = append(merged, x)
				case []any:
					for _, e := range x {
						if em, ok := e.(*omap); ok {
							merged = append(merged, em)
						}
					}
				}
				continue
			}
			if _, dup := m.vals[k.Value]; dup {
				return nil, fmt.Errorf("line %d: duplicate key %q", k.Line, k.Value)
			}
			m.set(k.Value, v)
		}
		// Explicit keys win over merged ones; earlier merges over later.
		for _, mm := range merged {
			for _, k := range mm.keys {
				if _, ok := m.vals[k]; !ok {
					m.set(k, mm.vals[k])
				}
			}
		}
		return m, nil
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

// mismatch is one difference between an expected and an actual value.
type mismatch struct {
	path string // e.g. spec.helm.chartSpec.chart, metadata.labels["a.b/c"], spec.x[0]
	msg  string // e.g. expected "x", got "y"; missing
}

func (m mismatch) String() string {
	if m.path == "" {
		return m.msg
	}
	return m.path + ": " + m.msg
}

// diffObject compares an expected object with an actual one, ignoring the
// expected apiVersion and kind (they chose the actual object).
func diffObject(expected *omap, actual map[string]any) []mismatch {
	var out []mismatch
	for _, k := range expected.keys {
		if k == "apiVersion" || k == "kind" {
			continue
		}
		av, ok := actual[k]
		compare(&out, joinKey("", k), expected.vals[k], av, ok)
	}
	return out
}

// diff returns where actual differs from expected, expected being a subset:
// maps match when each expected key matches (extra actual keys are fine),
// lists when they have the same length and match element by element,
// scalars when equal (numbers by value), and null matches a missing or null
// value. The order is deterministic: keys in the expectation's order (sorted
// for plain Go maps), list elements by index.
func diff(expected, actual any) []mismatch {
	var out []mismatch
	compare(&out, "", expected, actual, true)
	return out
}

func compare(out *[]mismatch, path string, exp, act any, present bool) {
	if exp == nil {
		if present && act != nil {
			*out = append(*out, mismatch{path, "expected null, got " + describe(act)})
		}
		return
	}
	if !present {
		// Name the missing leaves: status.valid: missing says more than
		// status: missing.
		if m := asOmap(exp); m != nil && len(m.keys) > 0 {
			for _, k := range m.keys {
				compare(out, joinKey(path, k), m.vals[k], nil, false)
			}
			return
		}
		*out = append(*out, mismatch{path, "missing"})
		return
	}
	if m := asOmap(exp); m != nil {
		am, ok := act.(map[string]any)
		if !ok {
			*out = append(*out, mismatch{path, "expected a map, got " + describe(act)})
			return
		}
		for _, k := range m.keys {
			av, ok := am[k]
			compare(out, joinKey(path, k), m.vals[k], av, ok)
		}
		return
	}
	if el, ok := exp.([]any); ok {
		al, ok := act.([]any)
		if !ok {
			*out = append(*out, mismatch{path, fmt.Sprintf("expected a list of %s, got %s", items(len(el)), describe(act))})
			return
		}
		if len(el) != len(al) {
			*out = append(*out, mismatch{path, fmt.Sprintf("expected %s, got %s", items(len(el)), items(len(al)))})
			return
		}
		for i := range el {
			compare(out, path+"["+strconv.Itoa(i)+"]", el[i], al[i], true)
		}
		return
	}
	if !scalarEqual(exp, act) {
		*out = append(*out, mismatch{path, "expected " + describe(exp) + ", got " + describe(act)})
	}
}

// asOmap returns exp as an ordered map if it is one or a plain map (whose
// keys are then sorted), else nil.
func asOmap(exp any) *omap {
	switch m := exp.(type) {
	case *omap:
		return m
	case map[string]any:
		o := newOmap()
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o.set(k, m[k])
		}
		return o
	}
	return nil
}

func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return strconv.Itoa(n) + " items"
}

// scalarEqual compares two scalars; numbers of any Go type compare by value.
func scalarEqual(a, b any) bool {
	if na, ok := toNumber(a); ok {
		nb, ok := toNumber(b)
		return ok && na.equal(nb)
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	return false
}

// number is an integer or a float.
type number struct {
	i     int64
	f     float64
	isInt bool
}

func (a number) float() float64 {
	if a.isInt {
		return float64(a.i)
	}
	return a.f
}

func (a number) equal(b number) bool {
	if a.isInt && b.isInt {
		return a.i == b.i
	}
	return a.float() == b.float()
}

func toNumber(v any) (number, bool) {
	switch x := v.(type) {
	case int:
		return number{i: int64(x), isInt: true}, true
	case int8:
		return number{i: int64(x), isInt: true}, true
	case int16:
		return number{i: int64(x), isInt: true}, true
	case int32:
		return number{i: int64(x), isInt: true}, true
	case int64:
		return number{i: x, isInt: true}, true
	case uint:
		return uintNumber(uint64(x)), true
	case uint8:
		return uintNumber(uint64(x)), true
	case uint16:
		return uintNumber(uint64(x)), true
	case uint32:
		return uintNumber(uint64(x)), true
	case uint64:
		return uintNumber(x), true
	case float32:
		return number{f: float64(x)}, true
	case float64:
		return number{f: x}, true
	}
	return number{}, false
}

func uintNumber(u uint64) number {
	if u <= math.MaxInt64 {
		return number{i: int64(u), isInt: true}
	}
	return number{f: float64(u)}
}

// maxShown is how many characters of a string value messages show.
const maxShown = 120

// describe formats a value for messages: strings quoted, numbers and
// booleans as written, null, and maps and lists by their shape.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if utf8.RuneCountInString(x) > maxShown {
			r := []rune(x)
			return strconv.Quote(string(r[:maxShown])) + "…"
		}
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case *omap, map[string]any:
		return "a map"
	case []any:
		return "a list of " + items(len(x))
	}
	if n, ok := toNumber(v); ok {
		if n.isInt {
			return strconv.FormatInt(n.i, 10)
		}
		return strconv.FormatFloat(n.f, 'g', -1, 64)
	}
	return fmt.Sprintf("%v", v)
}

var simpleKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// joinKey appends a map key to a path: a.b for plain keys,
// a["app.kubernetes.io/name"] for the others.
func joinKey(path, key string) string {
	if !simpleKey.MatchString(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// formatMismatches lists at most limit mismatches, one per line, each
// prefixed with indent.
func formatMismatches(ms []mismatch, indent string, limit int) string {
	var b strings.Builder
	for i, m := range ms {
		if i == limit {
			fmt.Fprintf(&b, "%s… and %d more\n", indent, len(ms)-limit)
			break
		}
		b.WriteString(indent + m.String() + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
