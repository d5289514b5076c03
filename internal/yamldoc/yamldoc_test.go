package yamldoc

import (
	"errors"
	"fmt"
	"os"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/k0rdent/kbook/internal/findings"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDocuments(t *testing.T) {
	docs, err := Documents("testdata/duplicates.yaml", read(t, "duplicates.yaml"), "")
	if err != nil {
		t.Fatal(err)
	}
	// The empty document between two --- reads as null, as a null one.
	var lines []int
	var nulls []bool
	for _, d := range docs {
		lines = append(lines, d.Line)
		nulls = append(nulls, IsNull(d))
	}
	if fmt.Sprint(lines, nulls) != "[1 16 17 19] [false true false true]" {
		t.Errorf("documents at lines %v, null %v; want [1 16 17 19] [false true false true]", lines, nulls)
	}

	_, err = Documents("testdata/broken.yaml", read(t, "broken.yaml"), "the YAML does not parse: ")
	var ie *findings.InputError
	if !errors.As(err, &ie) || ie.File != "testdata/broken.yaml" || ie.Line != 3 {
		t.Fatalf("broken YAML: %v, want an InputError at testdata/broken.yaml:3", err)
	}
}

// The walker answers what kubectl, the API server and Helm read
// (sigs.k8s.io/yaml: the last of duplicate keys wins), merge keys
// followed, and the line of the deepest part of a missing path.
func TestLookup(t *testing.T) {
	data := read(t, "duplicates.yaml")
	docs, err := Documents("duplicates.yaml", data, "")
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	first, _, _ := splitFirst(data)
	if err := sigsyaml.Unmarshal(first, &decoded); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  findings.Path
		value string
		line  int
		exact bool
	}{
		{findings.Path{"metadata", "name"}, decoded["metadata"].(map[string]any)["name"].(string), 5, true},
		{findings.Path{"data", "size"}, "large", 11, true},
		{findings.Path{"data", "region"}, "eu", 7, true},
		{findings.Path{"list", 1}, "b", 14, true},
		{findings.Path{"list", 2}, "", 12, false},
		{findings.Path{"metadata", "labels", "x"}, "", 3, false},
		{findings.Path{"kind", "x"}, "", 2, false},
	} {
		n, line, exact := Lookup(docs[0], tc.path)
		got := ""
		if n != nil {
			got = n.Value
		}
		if got != tc.value || line != tc.line || exact != tc.exact {
			t.Errorf("%s: %q at line %d (exact %v), want %q at %d (%v)", tc.path, got, line, exact, tc.value, tc.line, tc.exact)
		}
	}
	if decoded["metadata"].(map[string]any)["name"] != "last" {
		t.Errorf("sigs.k8s.io/yaml reads metadata.name %v: the walker's duplicate-key rule no longer matches it", decoded["metadata"])
	}
}

// splitFirst returns the first document of a stream.
func splitFirst(data []byte) ([]byte, []byte, bool) {
	for i := 0; i+4 <= len(data); i++ {
		if (i == 0 || data[i-1] == '\n') && string(data[i:i+4]) == "---\n" {
			return data[:i], data[i:], true
		}
	}
	return data, nil, false
}
