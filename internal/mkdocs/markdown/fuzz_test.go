package markdown

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"golang.org/x/tools/txtar"
)

// FuzzTranslate: any page translates without a panic, to as many Lines
// as output lines, or fails with a located *findings.InputError at a line of the page.
func FuzzTranslate(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, p := range files {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, fl := range ar.Files {
			if fl.Name == "in.md" {
				f.Add(fl.Data)
			}
		}
	}
	dir := f.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "a.md"), []byte("A\n--8<-- [start:s]\nS\n--8<-- [end:s]\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	opts := Options{
		File: "docs/in.md", ProjectDir: dir, DocsDir: docs, Path: filepath.Join(docs, "in.md"),
		Extensions: allExtensions, Icons: testIcons{},
		Plugins:   map[string]map[string]any{"macros": {}, "include-markdown": {}},
		Variables: map[string]any{"v": "1", "m": map[string]any{"k": []any{"a", 2.0}}},
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := Translate(src, opts)
		if err != nil {
			var e *findings.InputError
			if !errors.As(err, &e) {
				t.Fatalf("error is not a *findings.InputError: %v", err)
			}
			return
		}
		checkLines(t, src, res)
	})
}
