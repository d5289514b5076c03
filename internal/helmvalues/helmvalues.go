package helmvalues

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/k0rdent/kbook/internal/findings"
)

// SchemaURL is the resource name Helm compiles a chart's schema under.
const SchemaURL = "file:///values.schema.json"

// offline refuses every external schema: Helm would fetch http(s)
// references at install time, kbook (and an air-gapped management cluster)
// cannot.
type offline struct{}

func (offline) Load(url string) (any, error) {
	return nil, fmt.Errorf("kbook does not load external schema %s (it works offline; inline the definitions under $defs)", url)
}

// CompileSchema compiles a values.schema.json as Helm 3.19 does
// (chartutil.ValidateAgainstSingleSchema: santhosh-tekuri/jsonschema/v6,
// resource file:///values.schema.json), but offline: an external $ref is
// a compile error. A document that is not JSON is a *json.SyntaxError; one
// that is not a valid schema a *jsonschema.SchemaValidationError.
func CompileSchema(data []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{"file": offline{}, "http": offline{}, "https": offline{}})
	if err := c.AddResource(SchemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(SchemaURL)
}

// Error is one violation of a values schema.
type Error struct {
	// Path is the values path (list indexes as ints), nil for the root.
	Path findings.Path
	// Message is the validator's, in English; "required" with
	// SplitRequired.
	Message string
	// Forbidden is set on a key that additionalProperties: false rejects.
	Forbidden bool
	// Required is set, with SplitRequired, on a missing required key.
	Required bool
}

// Option tunes Validate and Leaves.
type Option func(*options)

type options struct{ splitRequired bool }

// SplitRequired reports each missing required key at its own path, with
// the message "required" and Required set, rather than once at the object
// that lacks it with the validator's message ("missing property 'x'").
func SplitRequired() Option { return func(o *options) { o.splitRequired = true } }

var printer = message.NewPrinter(language.English)

// Validate validates a values tree against a schema and returns its
// violations, one per values path (see Leaves); nil when it passes.
func Validate(s *jsonschema.Schema, vals map[string]any, opts ...Option) []Error {
	// Round-trip through JSON: the validator wants plain JSON types
	// (Helm's coalesced values may hold chartutil.Values maps).
	data, err := json.Marshal(vals)
	if err != nil {
		return []Error{{Message: "values cannot be encoded as JSON: " + err.Error()}}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return []Error{{Message: err.Error()}}
	}
	var ve *jsonschema.ValidationError
	if err := s.Validate(doc); err == nil || !errors.As(err, &ve) {
		return nil
	}
	return Leaves(ve, doc, opts...)
}

// Leaves flattens a validation error of doc to its leaves, one per value:
// an additionalProperties error becomes one Forbidden error per property
// it names, and the alternatives of anyOf/oneOf that fail at the same
// place are joined ("...; or ..."). Sorted by path.
func Leaves(ve *jsonschema.ValidationError, doc any, opts ...Option) []Error {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	var out []Error
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		p := PathFromPointer(e.InstanceLocation, doc)
		switch k := e.ErrorKind.(type) {
		case *kind.AdditionalProperties:
			for _, prop := range k.Properties {
				out = append(out, Error{Path: p.Child(prop), Forbidden: true,
					Message: "not allowed: the schema does not declare it and forbids other keys"})
			}
			return
		case *kind.Required:
			if o.splitRequired {
				for _, prop := range k.Missing {
					out = append(out, Error{Path: p.Child(prop), Message: "required", Required: true})
				}
				return
			}
		}
		out = append(out, Error{Path: p, Message: e.ErrorKind.LocalizedString(printer)})
	}
	walk(ve)
	slices.SortStableFunc(out, func(a, b Error) int { return strings.Compare(a.Path.String(), b.Path.String()) })
	merged := out[:0]
	for _, e := range out {
		if n := len(merged); n > 0 && merged[n-1].Path.String() == e.Path.String() {
			if !strings.Contains(merged[n-1].Message, e.Message) {
				merged[n-1].Message += "; or " + e.Message
			}
			continue
		}
		merged = append(merged, e)
	}
	return merged
}

// PathFromPointer turns the tokens of a JSON pointer into a path, using the
// value to tell list indexes from map keys.
func PathFromPointer(tokens []string, v any) findings.Path {
	p := make(findings.Path, 0, len(tokens))
	for _, t := range tokens {
		switch cur := v.(type) {
		case []any:
			if i, err := strconv.Atoi(t); err == nil {
				p = append(p, i)
				if i >= 0 && i < len(cur) {
					v = cur[i]
				} else {
					v = nil
				}
				continue
			}
			p = append(p, t)
			v = nil
		case map[string]any:
			p = append(p, t)
			v = cur[t]
		default:
			p = append(p, t)
			v = nil
		}
	}
	return p
}

// Applicable expands schemas to every schema that applies to the same
// value: $ref targets, allOf/anyOf/oneOf branches and if/then/else, each
// once, in the order found.
func Applicable(schemas []*jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	var add func(s *jsonschema.Schema)
	add = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
		add(s.Ref)
		for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for _, b := range l {
				add(b)
			}
		}
		add(s.Then)
		add(s.Else)
	}
	for _, s := range schemas {
		add(s)
	}
	return out
}

// DeepCopy copies a values tree: its maps and lists are new, scalars are
// shared. A nil map copies to an empty one.
func DeepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = DeepCopyValue(v)
	}
	return out
}

// DeepCopyValue copies one value of a values tree (see DeepCopy).
func DeepCopyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return DeepCopy(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = DeepCopyValue(e)
		}
		return out
	default:
		return v
	}
}
