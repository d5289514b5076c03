package mkdocs

import (
	"fmt"
	"strings"
	"testing"
)

// TestExpandNav: nav plugins' patterns in mkdocs.yml's nav, expanded as
// awesome-pages and literate-nav do, or (plugin not enabled) one warning
// at the first pattern's line and no entry.
func TestExpandNav(t *testing.T) {
	pages := []string{"index.md", "extra.md", "guides/one.md", "guides/three.md", "guides/two.md", "ref/api.md", "ref/deep/y.md"}
	for _, tc := range []struct {
		name, plugins, nav string
		want               string
		warn               string
	}{
		{name: "rest at the end", plugins: "awesome-pages", nav: "[index.md, guides/two.md, ...]",
			want: "[=index.md =guides/two.md =extra.md Guides[=guides/one.md =guides/three.md] Ref[=ref/api.md Deep[=ref/deep/y.md]]]"},
		{name: "rest with a glob, then the others", plugins: "awesome-pages",
			nav:  "[index.md, {Guides: [guides/one.md, '... | glob=guides/*.md']}, {More: ['...']}]",
			want: "[=index.md Guides[=guides/one.md =guides/three.md =guides/two.md] More[=extra.md Ref[=ref/api.md Deep[=ref/deep/y.md]]]]"},
		{name: "rest with a regex", plugins: "awesome-pages", nav: "[index.md, '... | regex=^ref/']",
			want: "[=index.md =ref/api.md Deep[=ref/deep/y.md]]"},
		{name: "rest flat", plugins: "awesome-pages", nav: "[index.md, '... | flat']",
			want: "[=index.md =extra.md =guides/one.md =guides/three.md =guides/two.md =ref/api.md =ref/deep/y.md]"},
		{name: "two rests", plugins: "awesome-pages", nav: "['...', index.md, '...']",
			want: "[=extra.md Guides[=guides/one.md =guides/three.md =guides/two.md] Ref[=ref/api.md Deep[=ref/deep/y.md]] =index.md]",
			warn: `mkdocs.yml:1: nav: a second "...": awesome-pages allows one rest entry; left out`},
		{name: "wildcard of pages under a title", plugins: "literate-nav", nav: "[index.md, {Guides: guides/*.md}]",
			want: "[=index.md Guides[=guides/one.md =guides/three.md =guides/two.md]]"},
		{name: "folders, pages named elsewhere left out", plugins: "literate-nav", nav: "[index.md, guides/two.md, '*/']",
			want: "[=index.md =guides/two.md Guides[=guides/one.md =guides/three.md] Ref[=ref/api.md Deep[=ref/deep/y.md]]]"},
		{name: "everything", plugins: "literate-nav", nav: "[extra.md, '*']",
			want: "[=extra.md =index.md Guides[=guides/one.md =guides/three.md =guides/two.md] Ref[=ref/api.md Deep[=ref/deep/y.md]]]"},
		{name: "globstar", plugins: "literate-nav", nav: "['**/y.md', 'ref/*.md']",
			want: "[=ref/deep/y.md =ref/api.md]"},
		{name: "no match", plugins: "literate-nav", nav: "[index.md, 'none/*.md']",
			want: "[=index.md]", warn: `mkdocs.yml:1: nav: "none/*.md" (literate-nav) matches no page of docs_dir docs: left out`},
		{name: "no plugin", plugins: "search", nav: "[index.md, {Guides: [guides/one.md, '...']}, 'ref/*.md']",
			want: "[=index.md Guides[=guides/one.md]]",
			warn: `mkdocs.yml:1: nav: "..." is a pattern of a nav plugin (awesome-pages, literate-nav), which plugins: does not enable`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(".", "mkdocs.yml", []byte(fmt.Sprintf("{site_name: x, plugins: [%s], nav: %s}", tc.plugins, tc.nav)))
			if err != nil {
				t.Fatal(err)
			}
			p.expandNav(pages)
			if got := fmt.Sprint(p.Nav); got != tc.want {
				t.Errorf("nav\n got %s\nwant %s", got, tc.want)
			}
			var warns []string
			for _, w := range p.Warnings {
				warns = append(warns, w.String())
			}
			all := strings.Join(warns, "\n")
			if tc.warn == "" && all != "" || !strings.Contains(all, tc.warn) {
				t.Errorf("warnings %q, want %q", all, tc.warn)
			}
			if strings.Count(all, "pattern of a nav plugin") > 1 {
				t.Errorf("the missing plugin said more than once: %q", all)
			}
		})
	}
}
