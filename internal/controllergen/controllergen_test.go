package controllergen

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestStale: one line per generated file that differs, is missing or is
// no longer generated; none when the project is current.
func TestStale(t *testing.T) {
	out := write(t, map[string]string{"object/zz_generated.deepcopy.go": "package v1\n", "crd/g_as.yaml": "a\n", "crd/g_bs.yaml": "b\n", "rbac/role.yaml": "r\n"})
	l := Layout{ObjectDir: "api/v1", CRDDir: "config/crd/bases", RBACDir: "config/rbac"}
	for _, tc := range []struct {
		name    string
		project map[string]string
		want    []string // file name substrings, one per stale line
	}{
		{"current", map[string]string{"api/v1/zz_generated.deepcopy.go": "package v1\n", "config/crd/bases/g_as.yaml": "a\n", "config/crd/bases/g_bs.yaml": "b\n", "config/rbac/role.yaml": "r\n"}, nil},
		{"differs", map[string]string{"api/v1/zz_generated.deepcopy.go": "package v1\n\n// edited\n", "config/crd/bases/g_as.yaml": "a\n", "config/crd/bases/g_bs.yaml": "b\n", "config/rbac/role.yaml": "r\n"},
			[]string{"zz_generated.deepcopy.go: differs from what controller-gen " + Version + " generates (first difference at line 3)"}},
		{"missing and extra", map[string]string{"api/v1/zz_generated.deepcopy.go": "package v1\n", "config/crd/bases/g_as.yaml": "a\n", "config/crd/bases/g_old.yaml": "o\n", "config/rbac/role.yaml": "r\n"},
			[]string{"g_bs.yaml: missing", "g_old.yaml: not generated"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Stale(out, write(t, tc.project), l)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("Stale = %q, want %d lines", got, len(tc.want))
			}
			for _, w := range tc.want {
				if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("Stale = %q, want a line with %q", got, w)
				}
			}
		})
	}
}
