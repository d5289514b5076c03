package site

import (
	"context"
	"html"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/mkdocs"
)

// corpus is a real MkDocs-material project of ../shared/mkdocs, or a skip.
func corpus(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a real MkDocs project (-short)")
	}
	dir := filepath.Join("..", "..", "..", "shared", "mkdocs", name)
	if _, err := os.Stat(filepath.Join(dir, "mkdocs.yml")); err != nil {
		t.Skipf("no corpus %s (the real MkDocs projects live in ../shared/mkdocs): %v", dir, err)
	}
	return dir
}

var (
	titleTag = regexp.MustCompile(`(?s)<title>(.*?)</title>`)
	h1Tag    = regexp.MustCompile(`(?s)<h1[^>]*>(.*?)</h1>`)
	anyTag   = regexp.MustCompile(`<[^>]+>`)
	sidebar  = regexp.MustCompile(`(?s)<nav class="kb-sidebar"[^>]*>(.*?)</nav>`)
	navHref  = regexp.MustCompile(`<a href="([^"]+)"`)
)

// TestMkDocsCorpora builds the real MkDocs projects as they are, with the
// library (the link policy is the checker's, tested on its own), and
// checks the HTML: every page MkDocs would build is there with a
// non-empty <title> and <h1>, and the sidebar follows mkdocs.yml's nav.
func TestMkDocsCorpora(t *testing.T) {
	for _, name := range []string{"k0s", "sveltos"} {
		t.Run(name, func(t *testing.T) {
			dir := corpus(t, name)
			p, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			v := &Version{Name: "next", Project: p}
			if _, err := Build(context.Background(), []*Version{v}, Options{Out: out}); err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(out, "next")
			files, err := p.MkDocs.Config.Files()
			if err != nil {
				t.Fatal(err)
			}
			if len(files.Pages) < 50 {
				t.Fatalf("%d pages: the corpus should have more", len(files.Pages))
			}
			for _, rel := range files.Pages {
				file := filepath.Join(root, filepath.FromSlash(PageURL(sectionPath(rel))), "index.html")
				data, err := os.ReadFile(file)
				if err != nil {
					t.Errorf("%s: not built: %v", rel, err)
					continue
				}
				for what, re := range map[string]*regexp.Regexp{"<title>": titleTag, "<h1>": h1Tag} {
					m := re.FindSubmatch(data)
					if m == nil || strings.TrimSpace(html.UnescapeString(anyTag.ReplaceAllString(string(m[1]), ""))) == "" {
						t.Errorf("%s: empty %s", rel, what)
					}
				}
			}
			// The sidebar lists the nav's pages in mkdocs.yml's order.
			home, err := os.ReadFile(filepath.Join(root, "index.html"))
			if err != nil {
				t.Fatal(err)
			}
			side := sidebar.FindSubmatch(home)
			if side == nil {
				t.Fatal("no sidebar on the home page")
			}
			var got []string
			for _, m := range navHref.FindAllSubmatch(side[1], -1) {
				if h := string(m[1]); strings.HasPrefix(h, "/next/") {
					got = append(got, h)
				}
			}
			var want []string
			seen := map[string]bool{}
			for _, it := range p.MkDocs.Config.NavPages() {
				if u := "/next/" + PageURL(sectionPath(it.Page)); !seen[u] && exists(filepath.Join(p.Dir, p.MkDocs.Config.DocsDir, it.Page)) {
					seen[u] = true
					want = append(want, u)
				}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("sidebar order:\n got %d: %s\nwant %d: %s", len(got), strings.Join(got, " "), len(want), strings.Join(want, " "))
			}
			// Images and files of docs_dir are served where MkDocs serves them.
			for _, a := range files.Assets {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(a))); err != nil {
					t.Errorf("asset %s not served: %v", path.Join(p.MkDocs.Config.DocsDir, a), err)
				}
			}
		})
	}
}

var _ = mkdocs.ConfigFile
