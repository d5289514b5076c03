package site

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	crumbsNav = regexp.MustCompile(`(?s)<nav class="kb-crumbs".*?</nav>`)
	listItem  = regexp.MustCompile(`(?s)<li>(.*?)</li>`)
)

// crumbs are a page's breadcrumbs as text, "Home / Guide / Details".
func crumbs(page string) string {
	var out []string
	for _, li := range listItem.FindAllStringSubmatch(crumbsNav.FindString(page), -1) {
		out = append(out, strings.TrimSpace(anyTag.ReplaceAllString(li[1], "")))
	}
	return strings.Join(out, " / ")
}

// TestMkDocsLook builds small MkDocs projects (testdata/mkdocs/look/*)
// and checks the written HTML for the project's own words and look
// (issue 37 item 3): sections named by the nav's labels (else by the
// section's index page, else as MkDocs names a folder) in the sidebar,
// breadcrumbs, home cards and prev/next, never Hugo's pluralised folder
// names; the logo, favicon, palette, extra_css, extra_javascript and
// extra.social, each URL relative to its page (the site works at /,
// under a subpath and from file://) and resolving. want maps a written
// file (below the version folder) to text its HTML must hold; crumbs to
// its breadcrumbs; notes are texts the load's warnings must hold, and
// unwanted text no written page may hold.
func TestMkDocsLook(t *testing.T) {
	// Hugo's names of the fixtures' folders, and absolute URLs, which
	// break under a subpath and from file://
	hugoNames := []string{"Commercials<", "Subs<", "Governances<", "Resource-References", "Resource-references",
		"Guides<", "Tools<", "Apis<", "Overviews<", `href="/`, `src="/`}
	for _, tc := range []struct {
		name     string
		want     map[string][]string
		crumbs   map[string]string
		notes    []string
		unwanted []string
	}{
		{
			// a nav with sections, a palette list, files of docs_dir,
			// another host's URLs, a module script, a social link
			name: "nav",
			want: map[string][]string{
				// home cards: the nav's section labels, in the nav's
				// order; a folder the nav does not name is named as
				// MkDocs names it; the sidebar: the nav's labels
				"index.html": {
					`<span class="kb-card-title">Commercial offers</span>`, `<span class="kb-card-title">Guide</span>`,
					`<span class="kb-card-title">Resource references</span>`, `<span class="kb-card-title">Sub</span>`,
					`<span class="kb-nav-label">Commercial offers</span>`, `<span class="kb-nav-label">CNCF</span>`,
					`<a href="../next/commercial/a/">Offer A</a>`, `<a href="../next/commercial/b/">Plans</a>`},
				// prev/next: the nav's order and labels
				"guide/overview/details/index.html": {
					`<a class="kb-prev" href="../../../../next/guide/overview/" rel="prev"><small>Previous</small><span>Overview</span></a>`,
					`<a class="kb-next" href="../../../../next/resource-references/ref/" rel="next"><small>Next</small><span>Ref</span></a>`},
				"commercial/b/index.html": {
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
					`<a href="https://github.com/acme/widget" rel="noopener" title="Widget on GitHub"`},
				// the section page Hugo makes of a top folder without an index
				"sub/index.html": {"<h1>Sub</h1>", "<title>Sub · Look</title>", `<span class="kb-card-title">Sub page</span>`},
				// a top folder without an index, named by its nav section
				"governance/index.html": {"<h1>Governance</h1>"},
			},
			crumbs: map[string]string{
				// a folder's index page named otherwise by the nav: the
				// section, then the page
				"guide/index.html": "Home / Guide / Before you start",
				// a section whose first page is the page itself
				// ("Overview: Overview: x/index.md") is not said twice
				"guide/overview/index.html":         "Home / Guide / Overview",
				"guide/overview/details/index.html": "Home / Guide / Overview / Details",
				"commercial/b/index.html":           "Home / Commercial offers / Plans",
				"governance/cncf/ai/index.html":     "Home / Governance / CNCF / AI conformance",
				// out of the nav: its folder, named as MkDocs names it
				"sub/page/index.html": "Home / Sub / Sub page",
			},
			notes: []string{"mkdocs.yml:18: extra_javascript js/missing.js: no such file in docs (left out)"},
			unwanted: []string{"missing.js", `Overview</a></li>
  <li><span aria-current="page">Overview`, "1 pages"},
		},
		{
			// no nav: MkDocs's own (a folder's index first, its pages,
			// then its subfolders, each titled as MkDocs titles a
			// folder); a palette as one mapping, names in any case
			name: "no-nav",
			want: map[string][]string{
				"index.html": {
					`<span class="kb-card-title">Guide</span>`, `<span class="kb-card-title">Resource references</span>`,
					`<span class="kb-card-title">Sub</span>`, `<span class="kb-card-count">1 page</span>`,
					`<span class="kb-nav-label">Guide</span>`, `<span class="kb-nav-label">Deeper</span>`,
					`<span class="kb-nav-label">Resource references</span>`,
					// amber takes black text, as in Material
					`--md-primary-fg-color:#ffc105;--md-accent-fg-color:#0091eb;--md-primary-bg-color:#000000de`},
				"guide/more/index.html": {
					`rel="prev"><small>Previous</small><span>Before you start</span>`,
					`rel="next"><small>Next</small><span>Deep</span>`},
			},
			crumbs: map[string]string{
				"guide/index.html":                   "Home / Guide / Before you start",
				"guide/deeper/deep/index.html":       "Home / Guide / Deeper / Deep",
				"resource-references/ref/index.html": "Home / Resource references / Ref",
			},
			unwanted: []string{`rel="icon" href="../`, "kb-logo-img", "kb-social", "Verification</a>"},
		},
		{
			// theme.custom_dir's static files served as MkDocs serves
			// them (not its templates); docs_dir elsewhere; a query in
			// extra_css kept; the default scheme's colours where a
			// slate scheme comes first; social links without a name
			name: "custom-dir",
			want: map[string][]string{
				"api/calls/index.html": {
					`<link rel="icon" href="../../../next/images/fav.ico">`,
					`<img class="kb-logo kb-logo-img" src="../../../next/assets/brand.svg"`,
					`--md-primary-fg-color:#4cae4f;--md-accent-fg-color:#df41fb;`, `html.dark{--md-primary-fg-color:#ef5350}`,
					`<link rel="stylesheet" href="../../../next/css/site.css?v=3">`,
					`<script src="../../../next/js/theme.js"></script>`,
					// Material names a link without a name by its host
					`<a href="https://social.example.com/@acme" rel="noopener" title="social.example.com"`,
					`<a href="https://acme.example.com/" rel="noopener" title="Acme" aria-label="Acme">Acme</a>`},
				"index.html":             {`<span class="kb-card-title">Subscriptions</span>`, `<span class="kb-card-title">API</span>`},
				"assets/brand.svg":       {"<svg"},
				"js/theme.js":            {"themeLoaded"},
				"subs/manage/index.html": {`rel="next"><small>Next</small><span>Overview</span>`},
			},
			crumbs: map[string]string{
				"subs/billing/index.html": "Home / Subscriptions / Billing",
				// a page named as its section, not its first: not
				// Subscriptions / Subscriptions
				"subs/manage/index.html": "Home / Subscriptions",
				"api/index.html":         "Home / API / Overview",
				"api/calls/index.html":   "Home / API / Calls",
			},
			notes: []string{
				"mkdocs.yml:16: extra_css css/gone.css: no such file in src or theme.custom_dir overrides (left out)",
				"theme.custom_dir overrides: MkDocs theme templates are not used by kbook's theme (its other files are served"},
			unwanted: []string{"gone.css", "main.html", "hidden.css"},
		},
		{
			// a nav without sections: a folder is named by its index
			// page's nav label, else by that page's title
			name: "index-title",
			want: map[string][]string{
				"index.html": {`<span class="kb-card-title">Tooling</span>`, `<span class="kb-card-title">API reference</span>`},
				"tools/cli/index.html": {
					`rel="prev"><small>Previous</small><span>Tooling</span>`, `rel="next"><small>Next</small><span>API reference</span>`},
			},
			crumbs: map[string]string{
				// a page at the nav's top: no section holds it
				"tools/cli/index.html": "Home / The CLI",
				"tools/index.html":     "Home / Tooling",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), tc.name)
			if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "mkdocs", "look", tc.name))); err != nil {
				t.Fatal(err)
			}
			p, out := buildNext(t, dir)
			root := filepath.Join(out, "next")
			// every href and src, the look's included, resolves from
			// the page that holds it
			checkLinksResolve(t, out, root, p)
			for file, wants := range tc.want {
				mustContain(t, file, read(t, filepath.Join(root, filepath.FromSlash(file))), wants...)
			}
			for file, want := range tc.crumbs {
				if got := crumbs(read(t, filepath.Join(root, filepath.FromSlash(file)))); got != want {
					t.Errorf("%s: breadcrumbs %q, want %q", file, got, want)
				}
			}
			for _, f := range htmlPages(t, root) {
				page := read(t, f)
				for _, u := range append(tc.unwanted, hugoNames...) {
					if strings.Contains(page, u) {
						t.Errorf("%s holds %q", f, u)
					}
				}
			}
			notes := strings.Join(p.MkDocs.Notes(), "\n")
			mustContain(t, "warnings", notes, tc.notes...)
			if strings.Contains(notes, "example.com") {
				t.Errorf("a URL of another host in mkdocs.yml is a warning, where MkDocs says nothing:\n%s", notes)
			}
			if t.Failed() {
				t.Logf("warnings:\n%s", notes)
			}
		})
	}
}
