package helmvalues

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/k0rdent/kbook/internal/findings"
)

func schemaData(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/values.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestValidate(t *testing.T) {
	s, err := CompileSchema(schemaData(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		vals  map[string]any
		split bool
		want  []string // "path: message [forbidden|required]"
	}{
		{"valid", map[string]any{"region": "eu", "workers": []any{map[string]any{"name": "a"}}}, false, nil},
		{"leaves, one per path", map[string]any{
			"region":  "",
			"typo":    1,
			"workers": []any{map[string]any{"name": "a", "replicas": -1}},
		}, false, []string{
			"region: minLength: got 0, want 1",
			"typo: not allowed: the schema does not declare it and forbids other keys forbidden",
			"workers[0].replicas: minimum: got -1, want 0",
		}},
		{"required at the object", map[string]any{"workers": []any{map[string]any{}}}, false, []string{
			": missing property 'region'",
			"workers[0]: missing property 'name'",
		}},
		{"required split", map[string]any{"workers": []any{map[string]any{}}}, true, []string{
			"region: required required",
			"workers[0].name: required required",
		}},
		{"alternatives joined", map[string]any{"region": "eu", "size": "medium"}, false, []string{
			"size: got string, want integer; or value must be one of 'small', 'large'",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.split {
				opts = append(opts, SplitRequired())
			}
			var got []string
			for _, e := range Validate(s, tc.vals, opts...) {
				g := e.Path.String() + ": " + e.Message
				if e.Forbidden {
					g += " forbidden"
				}
				if e.Required {
					g += " required"
				}
				got = append(got, g)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// Lists are told from maps by the value: workers[0] is an index.
func TestPathFromPointer(t *testing.T) {
	v := map[string]any{"workers": []any{map[string]any{"0": "x"}}}
	p := PathFromPointer([]string{"workers", "0", "0"}, v)
	if want := (findings.Path{"workers", 0, "0"}); !slices.Equal(p, want) {
		t.Errorf("got %#v, want %#v", p, want)
	}
}

func TestCompileSchemaOffline(t *testing.T) {
	_, err := CompileSchema([]byte(`{"$ref": "https://example.com/schema.json"}`))
	if err == nil || !strings.Contains(err.Error(), "does not load external schema https://example.com/schema.json") {
		t.Errorf("want the offline error, got %v", err)
	}
	if _, err := CompileSchema([]byte(`{`)); err == nil {
		t.Error("want an error for a schema that is not JSON")
	}
}

func TestApplicable(t *testing.T) {
	s, err := CompileSchema(schemaData(t))
	if err != nil {
		t.Fatal(err)
	}
	items := s.Properties["workers"].Items2020
	got := Applicable([]*jsonschema.Schema{items, items})
	// The items schema and the $defs/worker it refers to, each once.
	if len(got) != 2 || got[0] != items || got[1] != items.Ref {
		t.Errorf("Applicable = %v", got)
	}
}

func TestDeepCopy(t *testing.T) {
	in := map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": 1}}}}
	out := DeepCopy(in)
	out["a"].(map[string]any)["b"].([]any)[0].(map[string]any)["c"] = 2
	if in["a"].(map[string]any)["b"].([]any)[0].(map[string]any)["c"] != 1 {
		t.Error("DeepCopy shares a nested map")
	}
	if m := DeepCopy(nil); m == nil || len(m) != 0 {
		t.Errorf("DeepCopy(nil) = %#v, want an empty map", m)
	}
}
