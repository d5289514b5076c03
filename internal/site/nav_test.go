package site

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBuildNavigation: what a reader finds around a page - breadcrumbs,
// the sidebar (sections from folders, ordered by weight, the current page
// marked), a table of contents, previous and next, the last commit date
// from git, edit-this-page, highlighted code with Chroma's CSS, a sitemap
// per version, canonical links to the default alias, and a 404 page that
// looks for the page in the other versions.
func TestBuildNavigation(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir := fixture(t)
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", "."}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "docs", "--date", "2026-03-04T05:06:07Z"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Environ(), "GIT_COMMITTER_DATE=2026-03-04T05:06:07Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	v := &Version{Name: "v0.1", Aliases: []string{"latest"}, Project: p, Lastmod: Lastmod(dir, p.Config.Content, p.Config.Runbooks)}
	if _, err := Render(context.Background(), []*Version{v}, Options{Out: out, BaseURL: "https://docs.acme.io/"}); err != nil {
		t.Fatal(err)
	}
	page := read(t, filepath.Join(out, "v0.1", "guide", "intro", "index.html"))
	flat := regexp.MustCompile(`\s+`).ReplaceAllString(page, " ")
	mustContain(t, "intro page", flat,
		`<nav class="kb-crumbs" aria-label="Breadcrumb"><ol> <li><a href="../../../v0.1/">Home</a></li> <li><a href="../../../v0.1/guide/">Guide</a></li> <li><span aria-current="page">Introduction</span></li>`,
		`<aside class="kb-toc" aria-label="On this page">`, `<li><a href="#clusters">Clusters</a></li>`,
		`rel="prev"><small>Previous</small><span>Guide</span>`, `rel="next"><small>Next</small>`,
		`Last updated <time datetime="2026-03-04T05:06:07`,
		`https://github.com/acme/docs/edit/main/content/guide/intro.md`,
		`<pre tabindex="0" class="chroma">`,
		`<link rel="canonical" href="https://docs.acme.io/latest/guide/intro/">`,
	)
	// The sidebar: the sections in weight order, this page in it.
	side := flat[strings.Index(flat, `class="kb-sidebar"`):]
	side = side[:strings.Index(side, "</nav>")]
	guide, runbooks := strings.Index(side, `href="../../../v0.1/guide/"`), strings.Index(side, `href="../../../v0.1/runbooks/"`)
	if guide < 0 || runbooks < 0 || guide > runbooks || !strings.Contains(side, `href="../../../v0.1/guide/intro/"`) {
		t.Errorf("sidebar: Guide (weight 10) before Runbooks, with Introduction:\n%s", side)
	}
	css := read(t, firstGlob(t, filepath.Join(out, "css", "site.min.*.css")))
	mustContain(t, "stylesheet (Chroma's light and dark styles, the dark theme)", css, ".chroma", "html.dark .chroma", ".dark ")
	mustContain(t, "sitemap", read(t, filepath.Join(out, "v0.1", "sitemap.xml")), "<loc>https://docs.acme.io/v0.1/guide/intro/</loc>")
	mustContain(t, "404 page", read(t, filepath.Join(out, "v0.1", "404.html")), `id="kb-elsewhere"`, `id="kb-elsewhere-list"`)
}

func firstGlob(t *testing.T, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(pattern)
	if len(m) == 0 {
		t.Fatalf("no file %s", pattern)
	}
	return m[0]
}
