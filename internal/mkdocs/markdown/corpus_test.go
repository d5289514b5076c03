package markdown

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// corpusProject reads the options Translate needs from a real mkdocs.yml
// (the test's own small reader; the product's is internal/mkdocs).
func corpusProject(t *testing.T, dir string) Options {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "mkdocs.yml"))
	if err != nil {
		t.Fatal(err)
	}
	data = regexp.MustCompile(`!!python/\S+`).ReplaceAll(data, nil)
	var y struct {
		DocsDir    string         `yaml:"docs_dir"`
		Extensions []any          `yaml:"markdown_extensions"`
		Plugins    []any          `yaml:"plugins"`
		Extra      map[string]any `yaml:"extra"`
	}
	if err := yaml.Unmarshal(data, &y); err != nil {
		t.Fatalf("%s/mkdocs.yml: %v", dir, err)
	}
	named := func(list []any) map[string]map[string]any {
		m := map[string]map[string]any{}
		for _, e := range list {
			switch x := e.(type) {
			case string:
				m[x] = nil
			case map[string]any:
				for k, v := range x {
					o, _ := v.(map[string]any)
					if prev, ok := m[k]; ok && prev != nil && o == nil {
						o = prev
					}
					m[k] = o
				}
			}
		}
		return m
	}
	if y.DocsDir == "" {
		y.DocsDir = "docs"
	}
	abs, _ := filepath.Abs(dir)
	return Options{
		ProjectDir: abs, DocsDir: filepath.Join(abs, strings.TrimSuffix(y.DocsDir, "/")),
		Extensions: named(y.Extensions), Plugins: named(y.Plugins), Variables: y.Extra,
		Icons: NPMIcons(DefaultNPMDir()),
	}
}

// leftover is MkDocs block syntax at a line start, visible as text when
// it survives outside code.
// after a list item's or a definition's marker too.
var leftover = regexp.MustCompile(`^\s*(?:(?:[-*+]|\d{1,9}\.|:)\s+)?(!!! |\?\?\? |\?\?\?\+ |=== "|\{\{\{|\{%|--8<--)`)

// TestCorpus translates every page of the real MkDocs projects in
// ../shared/mkdocs: no error, no MkDocs block syntax left outside code,
// and the Unknown counts printed.
func TestCorpus(t *testing.T) {
	for _, name := range []string{"k0s", "sveltos", "k0rdent"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "..", "..", "shared", "mkdocs", name)
			if _, err := os.Stat(filepath.Join(dir, "mkdocs.yml")); err != nil {
				t.Skipf("corpus %s absent (%v): the real MkDocs projects live in ../shared/mkdocs", name, err)
			}
			opts := corpusProject(t, dir)
			unknown := map[string]int{}
			pages, warnings := 0, 0
			err := filepath.WalkDir(opts.DocsDir, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
					return nil
				}
				src, err := os.ReadFile(p)
				if err != nil {
					return nil // the dangling symlink of k0s's tree
				}
				rel, _ := filepath.Rel(opts.ProjectDir, p)
				o := opts
				o.File, o.Path = rel, p
				res, err := Translate(src, o)
				if err != nil {
					t.Errorf("%v", err)
					return nil
				}
				pages++
				warnings += len(res.Warnings)
				checkLines(t, src, res)
				for k, n := range res.Unknown {
					unknown[k] += n
				}
				for i, l := range visibleLines(res.Markdown) {
					if l != "" && leftover.MatchString(l) {
						t.Errorf("%s:%d: MkDocs syntax left as text: %s", rel, res.Lines[i], strings.TrimSpace(l))
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for k, n := range unknown {
				kinds = append(kinds, k+"="+itoa(n))
			}
			sort.Strings(kinds)
			t.Logf("%s: %d pages, %d warnings, unknown: %s", name, pages, warnings, strings.Join(kinds, ", "))
		})
	}
}

// visibleLines are the output's lines with those inside code fences,
// <pre> blocks and indented code blanked (the same length as the output).
func visibleLines(md []byte) []string {
	ls := strings.Split(string(md), "\n")
	out := make([]string, len(ls))
	fence := ""
	pre := false
	prevBlank := true
	for i, l := range ls {
		s := strings.TrimLeft(l, " ")
		switch {
		case fence != "":
			if isFenceClose(s, fence) {
				fence = ""
			}
		case pre:
			pre = !strings.Contains(l, "</pre>")
		case fenceOpen(s) != "":
			fence = fenceOpen(s)
		case strings.HasPrefix(s, "<pre"):
			pre = !strings.Contains(l, "</pre>")
		case len(l)-len(s) >= 4 && prevBlank:
		default:
			out[i] = l
		}
		prevBlank = strings.TrimSpace(l) == "" || (prevBlank && len(l)-len(s) >= 4)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
