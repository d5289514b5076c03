package markdown

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the out.md of testdata/*.txtar from the translation")

// allExtensions is a project that enables every extension kbook knows.
var allExtensions = map[string]map[string]any{
	"admonition": nil, "pymdownx.details": nil, "pymdownx.tabbed": {"alternate_style": true},
	"pymdownx.snippets": nil, "attr_list": nil, "md_in_html": nil, "def_list": nil, "footnotes": nil,
	"abbr": nil, "pymdownx.critic": nil, "pymdownx.caret": nil, "pymdownx.mark": nil, "pymdownx.tilde": nil,
	"pymdownx.keys": nil, "pymdownx.emoji": nil, "pymdownx.tasklist": nil, "pymdownx.highlight": nil,
	"callouts": nil, "github-callouts": nil,
	"pymdownx.superfences": {"custom_fences": []any{map[string]any{"name": "mermaid", "class": "mermaid"}}},
}

// fixtureOptions are a fixture's opts.json: what its project enables.
type fixtureOptions struct {
	Extensions map[string]map[string]any `json:"extensions"`
	Plugins    map[string]map[string]any `json:"plugins"`
	Variables  map[string]any            `json:"variables"`
}

// loadFixture writes a txtar fixture's files into a project folder and
// returns the page, its options and the archive.
func loadFixture(t *testing.T, path string) ([]byte, Options, *txtar.Archive) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var fo fixtureOptions
	var in []byte
	for _, f := range ar.Files {
		switch f.Name {
		case "in.md":
			in = f.Data
		case "out.md", "error", "unknown", "warnings":
		case "opts.json":
			if err := json.Unmarshal(f.Data, &fo); err != nil {
				t.Fatalf("%s: opts.json: %v", path, err)
			}
			if fo.Extensions == nil {
				fo.Extensions = allExtensions
			}
		default:
			p := filepath.Join(dir, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if fo.Extensions == nil {
		fo.Extensions = allExtensions
	}
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	return in, Options{
		File: "docs/in.md", ProjectDir: dir, DocsDir: docs, Path: filepath.Join(docs, "in.md"),
		Extensions: fo.Extensions, Plugins: fo.Plugins, Variables: fo.Variables, Icons: testIcons{},
	}, ar
}

// testIcons is a fixed icon set, so fixtures do not depend on npm.
type testIcons struct{}

func (testIcons) Icon(set, name string) (string, bool) {
	if name == "missing" {
		return "", false
	}
	return `<svg data-icon="` + set + "/" + name + `"></svg>`, true
}

func section(ar *txtar.Archive, name string) (string, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

func unknownText(u map[string]int) string {
	var keys []string
	for k, n := range u {
		keys = append(keys, k+": "+strconv.Itoa(n))
	}
	sort.Strings(keys)
	return strings.Join(keys, "\n")
}

// TestTranslate runs every testdata/*.txtar: in.md translated must give
// out.md (or the error), with the Unknown counts and warnings listed.
func TestTranslate(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/")
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			in, opts, ar := loadFixture(t, path)
			res, err := Translate(in, opts)
			if want, ok := section(ar, "error"); ok {
				var e *findings.InputError
				if err == nil || !errors.As(err, &e) {
					t.Fatalf("want error %q, got %v", want, err)
				}
				if got := err.Error(); strings.TrimSpace(want) != got {
					t.Fatalf("error:\n got %s\nwant %s", got, strings.TrimSpace(want))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkLines(t, in, res)
			got := string(res.Markdown)
			if *update {
				for i := range ar.Files {
					if ar.Files[i].Name == "out.md" {
						ar.Files[i].Data = []byte(got)
					}
				}
				if _, ok := section(ar, "out.md"); !ok {
					ar.Files = append(ar.Files, txtar.File{Name: "out.md", Data: []byte(got)})
				}
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, _ := section(ar, "out.md")
			if got != want {
				t.Errorf("output differs\n--- got\n%s\n--- want\n%s", got, want)
			}
			if want, ok := section(ar, "unknown"); ok {
				if got := unknownText(res.Unknown); got != strings.TrimSpace(want) {
					t.Errorf("unknown:\n got %s\nwant %s", got, want)
				}
			}
			if want, ok := section(ar, "warnings"); ok {
				var ws []string
				for _, w := range res.Warnings {
					ws = append(ws, w.String())
				}
				if got := strings.Join(ws, "\n"); got != strings.TrimSpace(want) {
					t.Errorf("warnings:\n got %s\nwant %s", got, want)
				}
			}
		})
	}
}

// checkLines checks that Result.Lines has one source line per output line,
// each a line of the input.
func checkLines(t testing.TB, in []byte, res *Result) {
	t.Helper()
	n := bytes.Count(res.Markdown, []byte("\n")) + 1
	if len(res.Lines) != n {
		t.Fatalf("Lines has %d entries for %d output lines", len(res.Lines), n)
	}
	max := bytes.Count(in, []byte("\n")) + 1
	for i, l := range res.Lines {
		if l < 1 || l > max {
			t.Fatalf("output line %d maps to source line %d (the page has %d)", i+1, l, max)
		}
	}
}
