package site

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/proc"
)

// TestHighlightStyleSameHTML: with classes (kbook's theme colours code by
// chroma's classes), the empty style writes the HTML Hugo's default
// style writes, token for token: only the formatter's work is saved.
func TestHighlightStyleSameHTML(t *testing.T) {
	for _, tc := range []struct{ lang, code string }{
		{"yaml", "apiVersion: v1 # a comment\nkind: ConfigMap\nmetadata:\n  name: \"x\"\n  labels: {a: 'b'}\ndata:\n  n: 3\n  on: true\n  text: |\n    two\n    lines\n---\n- &anchor item\n"},
		{"bash", "export A=1\nkubectl patch m kcm --patch \"{\\\"spec\\\":{}}\" --type=merge # patch\nfor i in $(seq 3); do echo \"$i\"; done\n"},
		{"json", `{"a": [1, 2.5, true, null], "b": "c"}`},
		{"go", "package main\n\nfunc main() { println(\"hi\") }\n"},
		{"console", "$ kbook build\nkbook build: wrote out/next (3 pages)\n"},
	} {
		var out []string
		for _, name := range []string{"monokai", highlightStyle} {
			lexer := lexers.Get(tc.lang)
			if lexer == nil {
				t.Fatalf("no lexer %s", tc.lang)
			}
			it, err := chroma.Coalesce(lexer).Tokenise(nil, tc.code)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := html.New(html.WithClasses(true)).Format(&b, styles.Get(name), it); err != nil {
				t.Fatal(err)
			}
			out = append(out, b.String())
		}
		if styles.Get(highlightStyle).Name != highlightStyle {
			t.Fatalf("style %s is not registered", highlightStyle)
		}
		if out[0] != out[1] {
			t.Errorf("%s: the HTML differs:\nmonokai: %s\n%s: %s", tc.lang, out[0], highlightStyle, out[1])
		}
	}
}

// TestTokenCache: a cached lexer gives the tokens chroma's lexer gives,
// lexes a block once, keeps what a build used for the next one (a
// missing or damaged file is an empty cache) and does not keep tokens
// with an Error among them, which a loaded machine can cause.
func TestTokenCache(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens.gob")
	yaml := lexers.Get("yaml")
	blocks := []string{"kind: ConfigMap\ndata:\n  a: 1\n", "- name: x\n  on: true # c\n"}
	want := map[string][]chroma.Token{}
	for _, b := range blocks {
		it, err := yaml.Tokenise(nil, b)
		if err != nil {
			t.Fatal(err)
		}
		want[b] = it.Tokens()
	}
	for build, lexed := range []int{2, 0} {
		c := loadTokenCache(file)
		l := cachedLexer{Lexer: yaml, c: c}
		for range 2 {
			for _, b := range blocks {
				it, err := l.Tokenise(nil, b)
				if err != nil {
					t.Fatal(err)
				}
				if got := it.Tokens(); !slices.Equal(got, want[b]) {
					t.Fatalf("build %d: tokens of %q differ:\n got %v\nwant %v", build+1, b, got, want[b])
				}
			}
		}
		if c.lexed != lexed {
			t.Errorf("build %d: %d blocks lexed, want %d", build+1, c.lexed, lexed)
		}
		if err := c.save(file); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file, []byte("not gob"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := loadTokenCache(file); len(c.old) != 0 {
		t.Errorf("a damaged file read as %d entries", len(c.old))
	}
	c := loadTokenCache(filepath.Join(t.TempDir(), "none.gob"))
	bad := cachedLexer{Lexer: chroma.MustNewLexer(&chroma.Config{Name: "bad"}, func() chroma.Rules {
		return chroma.Rules{"root": {{Pattern: "a", Type: chroma.Text}}}
	}), c: c}
	if _, err := bad.Tokenise(nil, "ab"); err != nil {
		t.Fatal(err)
	}
	if len(c.used) != 0 {
		t.Errorf("tokens with an Error kept: %v", c.used)
	}
}

// TestTokenCacheBuilds: kbook's Hugo child keeps the code blocks' tokens
// in kbook's cache, and the next build takes them from there (it lexes
// nothing, so leaves the file as it is) and writes the same pages.
func TestTokenCacheBuilds(t *testing.T) {
	t.Setenv(cache.EnvDir, t.TempDir())
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"mkdocs.yml":    "site_name: Tokens\n",
		"docs/index.md": "# Tokens\n\n```yaml\nkind: ConfigMap\n```\n\n```bash\necho \"hi\" | tr a-z A-Z\n```\n",
	})
	reg, err := proc.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	var pages []string
	var stamps []time.Time
	for range 2 {
		p, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "public")
		if _, err := Render(context.Background(), []*Version{{Name: "next", Project: p}}, Options{Out: out, Children: reg}); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, read(t, filepath.Join(out, "next", "index.html")))
		files, _ := filepath.Glob(filepath.Join(cache.DefaultDir(), "highlight", "*.gob"))
		if len(files) != 1 {
			t.Fatalf("token files %v, want one", files)
		}
		fi, err := os.Stat(files[0])
		if err != nil {
			t.Fatal(err)
		}
		stamps = append(stamps, fi.ModTime())
	}
	if !stamps[0].Equal(stamps[1]) {
		t.Errorf("the second build lexed again: the tokens were written at %v and %v", stamps[0], stamps[1])
	}
	if !strings.Contains(pages[0], `<span class="nt">kind</span>`) || pages[0] != pages[1] {
		t.Errorf("the page differs once the tokens come from the cache, or is not highlighted:\n%s\n---\n%s", pages[0], pages[1])
	}
}
