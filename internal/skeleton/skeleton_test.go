package skeleton

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	fsys := os.DirFS("testdata")
	tests := []struct {
		root    string
		want    map[string]string
		wantErr string
	}{
		{"skel", map[string]string{
			"plain.txt":      "plain {{ .Values.keep }}\n",
			"sub/chart.yaml": "name: acme\nhelm: {{ .Release.Name }}\n",
		}, ""},
		{"badskel", nil, `skeleton badskel/x.tmpl`},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			got, err := Render(fsys, tt.root, map[string]string{"Name": "acme"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("files %v, want %d", Names(got), len(tt.want))
			}
			for n, w := range tt.want {
				if string(got[n]) != w {
					t.Errorf("%s = %q, want %q", n, got[n], w)
				}
			}
		})
	}
}

// entries lists what is below dir, slash-separated, sorted ("" when dir
// does not exist).
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestWrite(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string][]byte
		exists  bool
		want    []string
		wantErr string
	}{
		{"new", map[string][]byte{"a.txt": []byte("a"), "b/c.txt": []byte("c")}, false, []string{".", "a.txt", "b", "b/c.txt"}, ""},
		{"exists", map[string][]byte{"a.txt": []byte("a")}, true, []string{"."}, "already exists"},
		// A file and a folder of one name: writing fails half way.
		{"fails", map[string][]byte{"x": []byte("file"), "x/y": []byte("in x")}, false, nil, "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			if tt.exists {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			err := Write(dir, tt.files)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if got := entries(t, dir); !slices.Equal(got, tt.want) {
				t.Errorf("dir holds %q, want %q", got, tt.want)
			}
			if got := entries(t, parent); len(got) != 1+len(tt.want) && !(tt.want == nil && len(got) == 1) {
				t.Errorf("parent holds %q: a temporary directory was left", got)
			}
		})
	}
	if got := string(mustRead(t, filepath.Join(writeNew(t), "b/c.txt"))); got != "c" {
		t.Errorf("b/c.txt = %q", got)
	}
}

func writeNew(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "new")
	if err := Write(dir, map[string][]byte{"b/c.txt": []byte("c")}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriteInto(t *testing.T) {
	tests := []struct {
		name    string
		before  map[string][]byte // in dir before
		files   map[string][]byte
		want    []string
		wantErr string
	}{
		{"empty dir", nil, map[string][]byte{"a.txt": []byte("a"), "b/c.txt": []byte("c")},
			[]string{".", "a.txt", "b", "b/c.txt"}, ""},
		{"beside other files", map[string][]byte{"README.md": []byte("mine")}, map[string][]byte{"b/c.txt": []byte("c")},
			[]string{".", "README.md", "b", "b/c.txt"}, ""},
		{"a file exists", map[string][]byte{"b/c.txt": []byte("mine")}, map[string][]byte{"a.txt": []byte("a"), "b/c.txt": []byte("c")},
			[]string{".", "b", "b/c.txt"}, "b/c.txt already exists"},
		{"fails", nil, map[string][]byte{"x": []byte("file"), "x/y": []byte("in x")},
			[]string{"."}, "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for n, c := range tt.before {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, n), c, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteInto(dir, tt.files)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if got := entries(t, dir); !slices.Equal(got, tt.want) {
				t.Errorf("dir holds %q, want %q", got, tt.want)
			}
			for n, c := range tt.before {
				if got := mustRead(t, filepath.Join(dir, n)); string(got) != string(c) {
					t.Errorf("%s was overwritten: %q", n, got)
				}
			}
		})
	}
	var ee *ExistError
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), nil, 0o644)
	if err := WriteInto(dir, map[string][]byte{"a": nil}); !errors.As(err, &ee) || len(ee.Paths) != 1 {
		t.Errorf("err = %v, want an *ExistError naming a", err)
	}
	// A folder it makes is taken back when nothing could be written.
	sub := filepath.Join(t.TempDir(), "new", "deeper")
	if err := WriteInto(sub, map[string][]byte{"x": nil, "x/y": nil}); err == nil {
		t.Fatal("conflicting names: no error")
	}
	if _, err := os.Stat(filepath.Dir(sub)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left behind: %v", filepath.Dir(sub), err)
	}
}
