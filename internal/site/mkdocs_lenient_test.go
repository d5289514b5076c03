package site

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMkDocsLenient builds small MkDocs projects that MkDocs 1.6, with
// the plugins they name, builds (issue 37's reproductions): each must
// build with kbook's code, write the pages, and say what MkDocs says.
// want maps a written file (below the version folder) to text its HTML
// must hold; notes are texts the load's warnings must hold, and unwanted
// text no written page may hold.
func TestMkDocsLenient(t *testing.T) {
	for _, tc := range []struct {
		name     string
		want     map[string][]string
		notes    []string
		unwanted []string
		files    []string
		absent   []string
		// fixture is testdata/mkdocs/lenient's folder (default name);
		// git makes it a git repository with a commit tagged v1.4.2;
		// project is the fixture's folder holding mkdocs.yml (default
		// the fixture itself).
		fixture string
		git     bool
		project string
	}{
		{
			// Hugo's shortcode delimiters are text in an MkDocs page, in
			// code or not, closed or not: MkDocs shows them as written
			// (Hugo failed the build on an unknown shortcode).
			name: "shortcodes",
			want: map[string][]string{"index.html": {
				"Write {{&lt; figure src=a.png &gt;}} or {{% note %}} in a Hugo page.",
				"Parse(`{{&lt;`))", "An open {{&lt; delimiter, and <code>{{% inline %}}</code>."}},
			unwanted: []string{"\uE000", "/*"},
		},
		{
			// A missing snippet is left out (pymdownx.snippets's
			// check_paths defaults to false), with a warning at its line.
			name:     "snippet-missing",
			want:     map[string][]string{"index.html": {"<p>Before.</p>", "<p>After.</p>"}},
			notes:    []string{`docs/index.md:5: snippet "generated/options.md" not found in base_path .: left out`},
			unwanted: []string{"--8&lt;--"},
		},
		{
			// docs_dir outside the project folder (../docs): MkDocs
			// refuses only docs_dir as mkdocs.yml's own folder and a
			// docs_dir and site_dir inside each other.
			name: "docs-outside", project: "site",
			want: map[string][]string{
				"index.html":             {"<h1>Outside home</h1>", `href="../next/guide/intro/"`},
				"guide/intro/index.html": {"<h1>Intro</h1>", "pic.svg", "Outside intro"},
			},
			files: []string{"guide/pic.svg"},
		},
		{
			// A relative link to a non-Markdown file beside the page is
			// no broken link (strict: true would fail the build): the
			// file is served and the written href leads to it.
			name: "files-beside",
			want: map[string][]string{"guide/page/index.html": {
				`href="../../../next/guide/conf.yaml"`, `href="../../../next/guide/run.sh"`, `href="../../../next/guide/main.go"`}},
			files: []string{"guide/conf.yaml", "guide/run.sh", "guide/main.go"},
		},
		{
			// Front matter that is not YAML is no front matter to MkDocs
			// (mkdocs/utils/meta.py): the page is built with the block
			// as text; kbook says so at the line. A key Hugo would refuse
			// (weight: heavy) is left out, with a warning.
			name: "front-matter",
			want: map[string][]string{
				"broken/index.html": {"<h1>Broken front matter</h1>", "Still built.", "description: [not closed"},
				"typed/index.html":  {"<h1>Typed</h1>", "Typed body."},
			},
			notes: []string{"docs/broken.md:3: front matter: did not find expected", "docs/typed.md:3: front matter: weight must be a whole number"},
		},
		{
			// docs_dir: . with the same-dir plugin: the project's folder
			// is docs_dir; site_dir and the top's non-page files are not
			// the site's.
			name: "same-dir",
			want: map[string][]string{
				"index.html":             {"<h1>Same-dir home</h1>"},
				"guide/intro/index.html": {"<h1>Intro</h1>", "pic.svg"},
			},
			files:    []string{"guide/pic.svg"},
			unwanted: []string{"Old mkdocs build output"},
			absent:   []string{"build.py", "mkdocs.yml", "site"},
		},
		{
			// x.md beside x/README.md: both are served at x/; MkDocs
			// writes the folder's page last, so it is what x/ shows.
			name: "page-and-folder",
			want: map[string][]string{
				"x/index.html":       {"<h1>X folder</h1>", "The folder README."},
				"x/other/index.html": {"<h1>Other</h1>"},
			},
			notes:    []string{"docs/x.md: excluded from the site because it conflicts with 'x/README.md'"},
			unwanted: []string{"The page beside the folder."},
		},
		{
			// mkdocs-macros: an undefined variable stays as written (its
			// default on_undefined: keep), git's variables are the
			// repository's, slices, filters, config and page variables,
			// and {% include %} from include_dir with the configured
			// delimiters.
			name: "macros", git: true,
			want: map[string][]string{"index.html": {
				"Release 1.4.2 of WIDGET on Macros, page Home, by Team A.",
				"{{ undefined_thing }} stays", "Install Widget from the included file."}},
			unwanted: []string{"[[%", "include &#39;install.md&#39;"},
		},
		{
			// Outside a git repository git's values are empty, as the
			// plugin's failed git commands leave them.
			name: "macros-outside-git", fixture: "macros",
			want: map[string][]string{"index.html": {"Release  of WIDGET on Macros"}},
		},
		{
			// include-markdown: an included file's relative links and
			// images lead where they did (rewrite-relative-urls, the
			// plugin's default), and its CRLF line ends do not stop the
			// ??? that follows it from being a details block.
			name: "include-markdown",
			want: map[string][]string{"index.html": {
				`href="../next/guide/intro/"`, `src="parts/img/logo.svg" alt="logo"`, `src="parts/img/logo.svg" alt="again"`, `<details class="note">`, "After the include"}},
			unwanted: []string{"??? note"},
		},
		{
			// GitHub's alerts with the gh-admonitions plugin (as with
			// markdown-callouts' github-callouts) are admonitions.
			name: "gh-callouts",
			want: map[string][]string{"index.html": {
				`<div class="admonition note">`, `<div class="admonition tip">`, `<div class="admonition important">`,
				`<div class="admonition warning">`, `<div class="admonition caution">`, "A note.", "Careful.",
				"<blockquote>"}},
			unwanted: []string{"[!NOTE]", "[!TIP]", "[!IMPORTANT]", "[!WARNING]", "[!CAUTION]"},
		},
		{
			// INHERIT: base.yml: the base's keys, deep-merged under the
			// inheriting file's (extra's keys merged, the child winning).
			name: "inherit",
			want: map[string][]string{"index.html": {
				"Widget 2.0 of Inheriting.", `<div class="admonition note">`, "<title>Inheriting"}},
		},
		{
			// Nav entries that are a nav plugin's patterns (awesome-pages'
			// "...", a literate-nav wildcard) are one warning at their
			// mkdocs.yml line, not dead links on every page.
			name: "nav-globs",
			want: map[string][]string{
				"index.html":            {`href="../next/guides/one/"`},
				"guides/two/index.html": {"<h1>Two</h1>"},
			},
			notes:    []string{`mkdocs.yml:6: nav: "..." is a pattern of a nav plugin`},
			unwanted: []string{`href="..."`, `guides/*.md`, `/.../`},
		},
		{
			// With awesome-pages enabled its rest entries are expanded:
			// "... | glob=guides/*.md" the guides not named, "..." the
			// pages named nowhere (folders as sections); a .pages file,
			// not read, is said once.
			name: "nav-awesome",
			want: map[string][]string{"index.html": {
				`href="../next/guides/three/">Three</a>`, `href="../next/guides/two/">Two</a>`,
				`<span class="kb-nav-label">Everything else</span>`, `href="../next/extra/">Extra</a>`,
				`<span class="kb-nav-label">Ref</span>`, `href="../next/ref/cli/">CLI</a>`}},
			notes:    []string{`docs/guides/.pages: awesome-pages' .pages files are not read by kbook`},
			unwanted: []string{`href="..."`, `glob=`, `/.../`},
		},
		{
			// With literate-nav enabled its wildcards are expanded: a
			// titled wildcard is a section of the pages it matches, "*/"
			// the folders (pages named elsewhere left out), and one that
			// matches nothing is a warning at its line.
			name: "nav-literate",
			want: map[string][]string{"index.html": {
				`<span class="kb-nav-label">Guides</span>`, `href="../next/guides/a/">Alpha</a>`, `href="../next/guides/b/">Beta</a>`,
				`<span class="kb-nav-label">Ref</span>`, `<span class="kb-nav-label">Deep</span>`, `href="../next/ref/deep/y/">Why</a>`}},
			notes:    []string{`mkdocs.yml:8: nav: "missing/*.md" (literate-nav) matches no page of docs_dir docs: left out`},
			unwanted: []string{`*.md`, `href="*/"`},
		},
		{
			// mkdocs.yml in a subfolder (hack/docs/, docs_dir: ../../docs),
			// built as the project does, with mkdocs build -f from the
			// repository's top: macros' include_dir and the snippets'
			// base_path, which the plugins read from the folder mkdocs
			// runs in, are found there.
			name: "config-in-subfolder", git: true, project: "hack/docs",
			want: map[string][]string{"index.html": {
				"kind: IncludedExample", "A part from a snippet of the repository&rsquo;s docs."}},
			unwanted: []string{"include &#39;example.yaml&#39;", "--8&lt;--"},
		},
		{
			// attr_list on a link by reference ([text][ref]{ .cls },
			// [text][]{: .cls }), as on an inline link: the classes apply,
			// no attribute list is left as text.
			name: "attr-ref-link",
			want: map[string][]string{"index.html": {
				`<span class="md-attr md-button md-button--primary"><a href="https://example.com/issues/new" rel="noopener">Report a bug</a></span>`,
				`<span class="md-attr md-button"><a href="../next/guide/">Guide</a></span>`}},
			unwanted: []string{"{ .md-button", "{: .md-button"},
		},
		{
			// Custom delimiters where the block's and the comment's start
			// with the variable's ([[%, [[#, [[): the longest is the tag,
			// as in Jinja's lexer, and an include in a raw block is text.
			name: "macros-brackets",
			want: map[string][]string{"index.html": {
				"Product Widget.</p>", "[[% include &#39;snippets/&lt;name&gt;.yaml&#39; %]] shows [[ product ]]", "kind: FromSnippet"}},
			unwanted: []string{"[[% raw", "[[% endraw", "a comment", "[[% include &#39;example.yaml"},
		},
		{
			// A {% filter %} block (indent, to include a file into an
			// indented code block of an admonition) applies its filter
			// to the block's rendered lines.
			name: "macros-filter",
			want: map[string][]string{"index.html": {
				`<div class="admonition note">`, "\nkind: ClusterPolicy\nspec:\n  rules: []\" aria-label", "<p>After the note.</p>"}},
			unwanted: []string{"filter indent", "endfilter", "{% include"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), tc.name)
			if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "mkdocs", "lenient", or(tc.fixture, tc.name)))); err != nil {
				t.Fatal(err)
			}
			if tc.git {
				gitRepo(t, dir, "v1.4.2")
			}
			p, out := buildNext(t, filepath.Join(dir, tc.project))
			if fs := CheckLinks(p, out); len(fs) > 0 {
				t.Errorf("link findings: %v", fs)
			}
			root := filepath.Join(out, "next")
			for file, wants := range tc.want {
				mustContain(t, file, read(t, filepath.Join(root, filepath.FromSlash(file))), wants...)
			}
			for _, f := range tc.files {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f))); err != nil {
					t.Errorf("not served: %v", err)
				}
			}
			for _, f := range tc.absent {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f))); err == nil {
					t.Errorf("%s is served; MkDocs leaves it out", f)
				}
			}
			notes := strings.Join(p.MkDocs.Notes(), "\n")
			mustContain(t, "warnings", notes, tc.notes...)
			for _, f := range htmlPages(t, root) {
				page := read(t, f)
				for _, u := range tc.unwanted {
					if strings.Contains(page, u) {
						t.Errorf("%s holds %q", f, u)
					}
				}
			}
			if t.Failed() {
				t.Logf("warnings:\n%s", notes)
			}
		})
	}
}

// gitRepo makes dir a git repository with one commit, tagged tag.
func gitRepo(t *testing.T, dir, tag string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "."},
		{"-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "docs"},
		{"tag", tag},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("git %v: %v: %s", args, err, out)
		}
	}
}
