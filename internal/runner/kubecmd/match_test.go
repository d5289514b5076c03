package kubecmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestDiffFixtures runs testdata/match/*.txtar: each holds expected.yaml,
// actual.yaml (as the API server would return it) and want, the expected
// mismatches one per line (empty: a match).
func TestDiffFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "match", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			parts := map[string]string{}
			for _, af := range ar.Files {
				parts[af.Name] = string(af.Data)
			}
			docs, err := decodeDocuments([]byte(parts["expected.yaml"]))
			if err != nil || len(docs) != 1 {
				t.Fatalf("expected.yaml: %d documents, %v", len(docs), err)
			}
			actual := yamlToAPI(t, []byte(parts["actual.yaml"])).(map[string]any)
			var got []string
			for _, m := range diffObject(docs[0], actual) {
				got = append(got, m.String())
			}
			want := strings.Split(strings.TrimSpace(parts["want"]), "\n")
			if want[0] == "" {
				want = nil
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("mismatches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestScalarEqual(t *testing.T) {
	tests := []struct {
		a, b any
		want bool
	}{
		{3, int64(3), true},
		{3, float64(3), true},
		{int64(3), float64(3), true},
		{uint8(3), int32(3), true},
		{float32(0.5), 0.5, true},
		{3, 3.5, false},
		{int64(9007199254740993), int64(9007199254740992), false}, // not equal as float64
		{uint64(1 << 63), float64(1 << 63), true},
		{"3", 3, false},
		{3, "3", false},
		{true, "true", false},
		{true, true, true},
		{false, true, false},
		{"a", "a", true},
		{"a", "b", false},
		{"", nil, false},
	}
	for _, tc := range tests {
		if got := scalarEqual(tc.a, tc.b); got != tc.want {
			t.Errorf("scalarEqual(%#v, %#v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestDiffPlain(t *testing.T) {
	tests := []struct {
		name     string
		exp, act any
		want     string
	}{
		{"nil matches nil", nil, nil, ""},
		{"plain maps sorted", map[string]any{"b": 1, "a": 2}, map[string]any{"a": 1, "b": 2}, "a: expected 2, got 1\nb: expected 1, got 2"},
		{"root scalar", "x", "y", `expected "x", got "y"`},
		{"long string truncated", "a", strings.Repeat("é", 130), `expected "a", got "` + strings.Repeat("é", 120) + `"…`},
		{"list in list", []any{[]any{1}}, []any{[]any{2}}, "[0][0]: expected 1, got 2"},
		{"empty key", map[string]any{"": 1}, map[string]any{}, `[""]: missing`},
		{"missing list", map[string]any{"l": []any{1}}, map[string]any{}, "l: missing"},
		{"empty map present", map[string]any{"m": map[string]any{}}, map[string]any{"m": map[string]any{"x": 1}}, ""},
		{"empty map vs scalar", map[string]any{"m": map[string]any{}}, map[string]any{"m": 1}, "m: expected a map, got 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, m := range diff(tc.exp, tc.act) {
				got = append(got, m.String())
			}
			if g := strings.Join(got, "\n"); g != tc.want {
				t.Errorf("diff =\n%s\nwant\n%s", g, tc.want)
			}
		})
	}
}

func TestFormatMismatches(t *testing.T) {
	var ms []mismatch
	for _, p := range []string{"a", "b", "c", "d"} {
		ms = append(ms, mismatch{p, "missing"})
	}
	got := formatMismatches(ms, "  ", 3)
	want := "  a: missing\n  b: missing\n  c: missing\n  … and 1 more"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := formatMismatches(ms[:1], "", 3); got != "a: missing" {
		t.Errorf("got %q", got)
	}
}

func TestDecodeDocuments(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // documents rendered by render, separated by " | "
		err  string
	}{
		{"order kept", "b: 1\na: 2\n", "{b: 1, a: 2}", ""},
		{"several and empty documents", "---\na: 1\n---\n---\nb: x\n...\n", `{a: 1} | {b: "x"}`, ""},
		{"json", `{"z": [1, 2.5, "s", null, true]}`, `{z: [1, 2.5, "s", null, true]}`, ""},
		{"yaml 1.2 scalars", "a: yes\nb: 0x10\nc: 1e3\nd: 2025-01-02\ne: ~\nf: '1'\n", `{a: "yes", b: 16, c: 1000, d: "2025-01-02", e: null, f: "1"}`, ""},
		{"anchors and merge keys", "base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n", "{base: {x: 1, y: 2}, c: {y: 3, x: 1}}", ""},
		{"merge list", "a: &a {x: 1}\nb: &b {x: 2, z: 3}\nc:\n  <<: [*a, *b]\n", "{a: {x: 1}, b: {x: 2, z: 3}, c: {x: 1, z: 3}}", ""},
		{"only empty", "---\n---\n", "", ""},
		{"duplicate key", "a: 1\nb:\n  c: 1\n  c: 2\n", "", `line 4: duplicate key "c"`},
		{"not a mapping", "a: 1\n---\n- x\n", "", "line 3: document 2 is a list of 1 item, not a mapping"},
		{"syntax error", "a: [\n", "", "yaml: line 1: did not find expected node content"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := decodeDocuments([]byte(tc.in))
			if done := checkErr(t, err, tc.err); done {
				return
			}
			var got []string
			for _, d := range docs {
				got = append(got, render(d))
			}
			if g := strings.Join(got, " | "); g != tc.want {
				t.Errorf("got %s, want %s", g, tc.want)
			}
		})
	}
}

// render formats a decoded value compactly, keeping key order.
func render(v any) string {
	switch x := v.(type) {
	case *omap:
		var parts []string
		for _, k := range x.keys {
			parts = append(parts, k+": "+render(x.vals[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, render(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return describe(v)
}

func TestJoinKey(t *testing.T) {
	tests := []struct{ path, key, want string }{
		{"", "spec", "spec"},
		{"spec", "chart", "spec.chart"},
		{"metadata.labels", "app.kubernetes.io/name", `metadata.labels["app.kubernetes.io/name"]`},
		{"data", "x-y_z", "data.x-y_z"},
		{"data", "1st", `data["1st"]`},
		{"", "a b", `["a b"]`},
	}
	for _, tc := range tests {
		if got := joinKey(tc.path, tc.key); got != tc.want {
			t.Errorf("joinKey(%q, %q) = %q, want %q", tc.path, tc.key, got, tc.want)
		}
	}
}
