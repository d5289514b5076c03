package site

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// mkdocsFixture copies testdata/mkdocs/NAME into a temporary directory.
func mkdocsFixture(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "mkdocs", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestLoadMkDocs(t *testing.T) {
	p, err := Load(mkdocsFixture(t, "basic"))
	if err != nil {
		t.Fatal(err)
	}
	c := p.Config
	if c.Title != "Acme Docs" || c.Description != "How Acme runs its clusters." || c.Repo != "https://github.com/acme/docs" || c.Content != "docs" {
		t.Errorf("config from mkdocs.yml: %+v", c)
	}
	if c.Links.NotFound != "warn" || c.Links.Anchors != "warn" || c.Links.Absolute != "info" || c.Links.Strict {
		t.Errorf("link policy from validation: %+v", c.Links)
	}
	var paths []string
	for _, pg := range p.Pages {
		paths = append(paths, pg.Path+"="+pg.Front["title"].(string))
	}
	want := "_index.md=Welcome to Acme guide/_index.md=Getting started guide/second.md=Second steps try.md=Try it unlisted.md=Unlisted"
	if got := strings.Join(paths, " "); got != want {
		t.Errorf("pages:\n got %s\nwant %s", got, want)
	}
	if len(p.Runbooks) != 1 || p.Runbooks[0].Path != "docs/try.md" {
		t.Errorf("runbooks: %v", p.Runbooks)
	}
	notes := strings.Join(p.MkDocs.Notes(), "\n")
	mustContain(t, "notes", notes,
		"mkdocs.yml:9: theme.custom_dir docs/theme",
		"mkdocs.yml:25: plugins kbook does not run, skipped: git-revision-date-localized",
		`docs/index.md:9: <script async defer src="https://buttons.github.io/buttons.js"></script>: not loaded`)
	if got := p.RunbookPaths(); len(got) != 1 || !strings.HasSuffix(got[0], filepath.Join("docs", "try.md")) {
		t.Errorf("runbook paths: %v", got)
	}
}

// TestBuildMkDocs builds the fixture with its runbook run: the HTML has
// MkDocs's titles, the nav's order with its external link, the runbook's
// badge, the image at MkDocs's path and the redirect; excluded files,
// hidden folders and the theme's custom_dir are not pages.
func TestBuildMkDocs(t *testing.T) {
	dir := mkdocsFixture(t, "basic")
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	v := &Version{Name: "next", Project: p, Results: runAll(t, p)}
	if _, err := Render(context.Background(), []*Version{v}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(out, "next")
	home := read(t, filepath.Join(root, "index.html"))
	mustContain(t, "home", home, "<h1>Welcome to Acme</h1>", `<a href="https://github.com/acme" rel="noopener">Acme on GitHub</a>`, `src="img/logo.svg"`)
	if strings.Contains(home, "buttons.github.io") {
		t.Error("home: loads a script from another host")
	}
	if strings.Count(home, "Welcome to Acme</h1>") != 1 {
		t.Error("home: the leading # heading is shown twice")
	}
	side := sidebar.FindStringSubmatch(home)[1]
	order := []string{">Home<", ">Guide<", ">Getting started<", ">Second steps<", ">Try it<", ">Acme on GitHub<"}
	last := -1
	for _, o := range order {
		i := strings.Index(side, o)
		if i < last {
			t.Errorf("sidebar: %s out of mkdocs.yml's order:\n%s", o, side)
		}
		last = i
	}
	mustContain(t, "guide", read(t, filepath.Join(root, "guide", "index.html")), "<title>Getting started")
	mustContain(t, "second", read(t, filepath.Join(root, "guide", "second", "index.html")), "<h1>Second steps</h1>", "What to do next.")
	mustContain(t, "unlisted", read(t, filepath.Join(root, "unlisted", "index.html")), "<h1>Unlisted</h1>")
	mustContain(t, "runbook", read(t, filepath.Join(root, "try", "index.html")), "<h1>Try it</h1>", "kb-badge-verified")
	mustContain(t, "redirect", read(t, filepath.Join(root, "old-guide", "index.html")), "guide/second/")
	if _, err := os.Stat(filepath.Join(root, "img", "logo.svg")); err != nil {
		t.Errorf("image not served: %v", err)
	}
	for _, gone := range []string{"drafts", "theme", ".hidden", "scratch.tmp"} {
		if _, err := os.Stat(filepath.Join(root, gone)); err == nil {
			t.Errorf("%s is built; MkDocs leaves it out", gone)
		}
	}
}

func TestLoadMkDocsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yml, want string
	}{
		{"syntax", "site_name: x\nnav:\n  - [a\n", "mkdocs.yml:3:"},
		{"no site_name", "docs_dir: docs\n", "mkdocs.yml:1: site_name is required"},
		{"docs_dir outside, missing", "site_name: x\ndocs_dir: ../elsewhere\n", "mkdocs.yml:2: docs_dir ../elsewhere: no such folder"},
		{"site_dir in docs_dir", "site_name: x\nsite_dir: docs/site\n", "mkdocs.yml:2: site_dir docs/site is within docs_dir docs"},
		{"docs_dir holds the project", "site_name: x\ndocs_dir: ..\n", "mkdocs.yml:2: site_dir site is within docs_dir .."},
		{"docs_dir in site_dir", "site_name: x\nsite_dir: out\ndocs_dir: out/docs\n", "mkdocs.yml:2: docs_dir out/docs is within site_dir out"},
		{"docs_dir is the project", "site_name: x\ndocs_dir: .\n", "mkdocs.yml:2: docs_dir must not be the folder holding mkdocs.yml"},
		{"INHERIT missing", "INHERIT: nope.yml\nsite_name: x\n", "mkdocs.yml:1: INHERIT: inherited config file 'nope.yml' does not exist"},
		{"no docs_dir", "site_name: x\ndocs_dir: missing\n", "mkdocs.yml:2: docs_dir missing: no such folder"},
		{"bad validation", "site_name: x\nvalidation:\n  links:\n    not_found: loud\n", "mkdocs.yml:4: validation: \"loud\""},
		{"bad nav", "site_name: x\nnav:\n  - A: {b: c}\n", "mkdocs.yml:3: nav: A: want a page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "mkdocs.yml"), []byte(tc.yml), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(dir, "docs"), 0o755); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			var se *findings.InputError
			if !errors.As(err, &se) {
				t.Errorf("%T is not a located *findings.InputError (exit 2)", err)
			}
		})
	}
}
