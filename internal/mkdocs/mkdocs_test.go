package mkdocs

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParseTags(t *testing.T) {
	data, err := os.ReadFile("testdata/tags.yml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(".", "mkdocs.yml", data)
	if err != nil {
		t.Fatal(err)
	}
	if p.SiteName != "Tagged" || p.DocsDir != "docs" || !p.Strict {
		t.Errorf("site_name %q docs_dir %q strict %v", p.SiteName, p.DocsDir, p.Strict)
	}
	want := Validation{
		Nav:   NavValidation{OmittedFiles: "warn", NotFound: "warn", AbsoluteLinks: "relative_to_docs"},
		Links: LinkValidation{NotFound: "warn", Anchors: "info", AbsoluteLinks: "relative_to_docs", UnrecognizedLinks: "info"},
	}
	if p.Validation != want {
		t.Errorf("validation %+v, want %+v", p.Validation, want)
	}
	if got := p.Extensions["pymdownx.emoji"]["emoji_index"]; got != "material.extensions.emoji.twemoji" {
		t.Errorf("!!python/name: %v", got)
	}
	fences, _ := p.Extensions["pymdownx.superfences"]["custom_fences"].([]any)
	if len(fences) != 1 {
		t.Errorf("superfences listed twice: options merged, got %v", p.Extensions["pymdownx.superfences"])
	}
	if p.Plugins["macros"]["j2_variable_start_string"] != "{{{" || !reflect.DeepEqual(p.UnknownPlugins, []string{"ezglossary"}) {
		t.Errorf("plugins %v unknown %v", p.Plugins, p.UnknownPlugins)
	}
	if p.Extra["again"] != "1.2" {
		t.Errorf("alias in extra: %v", p.Extra)
	}
	var got []string
	var walk func([]*NavItem, string)
	walk = func(items []*NavItem, pre string) {
		for _, it := range items {
			got = append(got, pre+it.Title+"|"+it.Page+"|"+it.URL)
			walk(it.Children, pre+"  ")
		}
	}
	walk(p.Nav, "")
	wantNav := []string{"|index.md|", "Section||", "  Page|a/b.md|", "  Out||https://example.com", "  Empty||"}
	if !reflect.DeepEqual(got, wantNav) {
		t.Errorf("nav %q, want %q", got, wantNav)
	}
	t.Setenv("KBOOK_MKDOCS_TEST_NAME", "From env")
	if p, err = Parse(".", "mkdocs.yml", data); err != nil || p.SiteName != "From env" {
		t.Errorf("!ENV: %v %v", p.SiteName, err)
	}
}

func TestExcluded(t *testing.T) {
	m, err := newMatcher("drafts/\n*.tmp\n!keep.tmp\n/top.md\nsub/**/x.md\n", []string{"internal/*", "k0s"}, []string{`.*\.bak$`})
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{
		".hidden/a.md": true, "a/.dot.md": true, "templates/x.md": true, "a/templates/x.md": false,
		"drafts/a.md": true, "a/drafts/b.md": true, "drafts.md": false,
		"x.tmp": true, "a/x.tmp": true, "keep.tmp": false,
		"top.md": true, "a/top.md": false, "sub/a/b/x.md": true, "sub/x.md": true,
		"internal/a/b.md": true, "k0s": true, "k0s/a.md": true, "k0s.md": false,
		"a.bak": true, "page.md": false,
	} {
		if got := m.excluded(rel); got != want {
			t.Errorf("excluded(%s) = %v, want %v", rel, got, want)
		}
	}
}

func TestFirstH1(t *testing.T) {
	for _, tc := range []struct {
		name, src, text string
		line            int
		leading         bool
	}{
		{"atx", "# Title\n\ntext\n", "Title", 1, true},
		{"after comment", "<!--\nlicence\n-->\n\n# Quick `k0s` [start](x.md) { #id }\n", "Quick k0s start", 5, true},
		{"setext", "\nSecond\n======\n", "Second", 2, true},
		{"after text", "intro\n\n# Later\n", "Later", 3, false},
		{"in a fence", "```\n# not a title\n```\n## h2\n", "", 0, false},
		{"closing hashes", "#   Hashes ##\n", "Hashes", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ok := FirstH1([]byte(tc.src), 1)
			if !ok {
				h = Heading{}
			}
			if h.Text != tc.text || h.Line != tc.line || h.Leading != tc.leading {
				t.Errorf("got %+v, want %q at %d leading %v", h, tc.text, tc.line, tc.leading)
			}
		})
	}
}

func TestFileTitle(t *testing.T) {
	for rel, want := range map[string]string{
		"use_case-idp.md": "Use case idp", "a/README.md": "A", "index.md": "Home", "x/y/index.md": "Y",
		"myAPI.md": "myAPI", "FAQ.md": "FAQ", "resource-references/index.md": "Resource references",
	} {
		if got := FileTitle(rel); got != want {
			t.Errorf("FileTitle(%s) = %q, want %q", rel, got, want)
		}
	}
}

// TestAutoNav: a project without a nav gets MkDocs's own, in
// mkdocs/structure/files.py's order (a folder's index first, its pages,
// then its subfolders), sections titled as MkDocs titles a folder.
func TestAutoNav(t *testing.T) {
	nav := AutoNav([]string{"sub/page.md", "guide/deeper/deep.md", "index.md", "guide/more.md", "about.md",
		"guide/index.md", "resource-references/ref.md", "my_API/README.md", "my_API/b.md"})
	var show func(items []*NavItem) string
	show = func(items []*NavItem) string {
		var parts []string
		for _, it := range items {
			if it.IsSection() {
				parts = append(parts, it.Title+"["+show(it.Children)+"]")
				continue
			}
			parts = append(parts, it.Page)
		}
		return strings.Join(parts, " ")
	}
	want := "index.md about.md Guide[guide/index.md guide/more.md Deeper[guide/deeper/deep.md]] " +
		"my API[my_API/README.md my_API/b.md] Resource references[resource-references/ref.md] Sub[sub/page.md]"
	if got := show(nav); got != want {
		t.Errorf("AutoNav:\n got %s\nwant %s", got, want)
	}
}
