package site

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMkDocsLook builds a small MkDocs project and checks the written
// HTML for its own words and look (issue 37 item 3): sections named by
// the nav's labels (else as MkDocs names a folder) in breadcrumbs, home
// cards and prev/next, never Hugo's pluralised folder names; the logo,
// favicon, palette, extra_css, extra_javascript and extra.social.
func TestMkDocsLook(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "project")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "mkdocs", "look", "project"))); err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := Build(context.Background(), []*Version{{Name: "next", Project: p}}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	if fs := CheckLinks(p, out); len(fs) > 0 {
		t.Errorf("link findings: %v", fs)
	}
	root := filepath.Join(out, "next")
	for _, tc := range []struct {
		file string
		want []string
	}{
		// home cards: the nav's section labels, in the nav's order; a
		// folder the nav does not name is named as MkDocs names it
		{"index.html", []string{
			`<span class="kb-card-title">Commercial offers</span>`, `<span class="kb-card-title">Guide</span>`,
			`<span class="kb-card-title">Resource references</span>`, `<span class="kb-card-title">Sub</span>`}},
		// breadcrumbs: sections by their labels; a folder's index page
		// named otherwise by the nav is the folder, then the page
		{"guide/index.html", []string{`<a href="../../next/guide/">Guide</a></li>`, `<span aria-current="page">Before you start</span>`}},
		{"guide/overview/details/index.html", []string{
			`<a href="../../../../next/guide/">Guide</a></li>`, `<a href="../../../../next/guide/overview/">Overview</a></li>`,
			`<span aria-current="page">Details</span>`,
			// prev/next: the nav's order and labels
			`<a class="kb-prev" href="../../../../next/guide/overview/" rel="prev"><small>Previous</small><span>Overview</span></a>`,
			`<a class="kb-next" href="../../../../next/resource-references/ref/" rel="next"><small>Next</small><span>Ref</span></a>`}},
		{"commercial/b/index.html", []string{
			`<a href="../../../next/commercial/">Commercial offers</a></li>`,
			`rel="prev"><small>Previous</small><span>Offer A</span>`, `rel="next"><small>Next</small><span>Before you start</span>`,
			// the look, on every page
			`<link rel="icon" href="../../../next/img/fav.png">`,
			`<img class="kb-logo kb-logo-img" src="../../../next/img/logo.svg"`,
			`--md-primary-fg-color:#009485`, `--md-accent-fg-color:#ff6e42`, `html.dark{--md-primary-fg-color:#546d78}`,
			`<link rel="stylesheet" href="../../../next/css/extra.css">`,
			// a URL of another host as MkDocs writes it, in mkdocs.yml's order
			`<link rel="stylesheet" href="https://cdn.example.com/x.css">`,
			`<script src="../../../next/js/extra.js"></script>
<script src="https://stats.example.com/count.js"></script>
<script src="../../../next/js/mod.mjs" type="module" async></script>`,
			`<a href="https://github.com/acme/widget" rel="noopener" title="Widget on GitHub"`}},
		// the section page Hugo makes of a top folder without an index
		{"sub/index.html", []string{"<h1>Sub</h1>", "<title>Sub · Look</title>"}},
		// two nav sections holding one folder's index page: the page is
		// the folder, named by its own label, the sections name nothing
		{"governance/cncf/ai/index.html", []string{`<li><a href="../../../../next/">Home</a></li>
  <li><a href="../../../../next/governance/">Governance</a></li>
  <li><span aria-current="page">AI conformance</span></li>
</ol></nav>`, `rel="prev"><small>Previous</small><span>Ref</span>`}},
	} {
		mustContain(t, tc.file, read(t, filepath.Join(root, filepath.FromSlash(tc.file))), tc.want...)
	}
	for _, f := range htmlPages(t, root) {
		page := read(t, f)
		for _, u := range []string{"Commercials", "Subs<", "Governances", "Resource-References", "Resource-references", "missing.js", "Overview</a></li>\n  <li><span aria-current=\"page\">Overview"} {
			if strings.Contains(page, u) {
				t.Errorf("%s holds %q", f, u)
			}
		}
	}
	notes := strings.Join(p.MkDocs.Notes(), "\n")
	mustContain(t, "warnings", notes, "mkdocs.yml:15: extra_javascript js/missing.js: no such file in docs (left out)")
	if strings.Contains(notes, "example.com") {
		t.Errorf("a URL of another host in mkdocs.yml is a warning, where MkDocs says nothing:\n%s", notes)
	}
	if t.Failed() {
		t.Logf("warnings:\n%s", notes)
	}
}
