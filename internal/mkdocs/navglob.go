package mkdocs

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/k0rdent/kbook/internal/pathglob"
)

// Nav plugins' patterns in mkdocs.yml's nav. awesome-pages' rest entries
// ("...", "... | flat", "... | glob=P" or "... | P", "... | regex=R")
// stand for the pages the nav does not name elsewhere; literate-nav's
// wildcards ("guides/*.md", "*/", "**/*.md") for the pages and folders
// they match. With the plugin enabled, Files expands them as the plugin
// does; without it, MkDocs itself would take the entry for a missing
// page, and kbook says so once, at its line, instead of a dead link on
// every page.

// navPlugins are the plugins whose patterns kbook expands.
const (
	awesomePages = "awesome-pages"
	literateNav  = "literate-nav"
)

// isRest reports whether s is an awesome-pages rest entry.
func isRest(s string) bool {
	s = strings.TrimSpace(s)
	return s == "..." || strings.HasPrefix(s, "... ") || strings.HasPrefix(s, "...|")
}

// dropNavPatterns leaves out the patterns of nav plugins that are not
// enabled, with one warning at the first; read calls it once plugins:
// is known.
func (p *Project) dropNavPatterns() {
	_, awesome := p.Plugins[awesomePages]
	_, literate := p.Plugins[literateNav]
	warned := false
	p.Nav = filterNav(p.Nav, func(it *NavItem) bool {
		if it.pattern == "" || isRest(it.pattern) && awesome || !isRest(it.pattern) && literate {
			return true
		}
		if !warned {
			warned = true
			p.warnf(it.Line, "nav: %q is a pattern of a nav plugin (awesome-pages, literate-nav), which plugins: does not enable: the pages it names are not in the sidebar", it.pattern)
		}
		return false
	})
}

// filterNav keeps the items keep accepts, at every depth; a section
// keeps its place even when it ends up empty, as MkDocs shows it.
func filterNav(items []*NavItem, keep func(*NavItem) bool) []*NavItem {
	out := items[:0]
	for _, it := range items {
		if !keep(it) {
			continue
		}
		it.Children = filterNav(it.Children, keep)
		out = append(out, it)
	}
	return out
}

// expandNav replaces the nav's patterns by what they name among pages
// (docs-relative, every page of docs_dir): literate-nav's wildcards in
// nav order, each page once (pages the nav names are not repeated), then
// awesome-pages' rest entries (those with a pattern first, then "...")
// with what is left. A pattern that names no page is a warning at its
// line and left out.
func (p *Project) expandNav(pages []string) {
	seen := map[string]bool{}
	var walk func([]*NavItem)
	walk = func(items []*NavItem) {
		for _, it := range items {
			if it.Page != "" {
				seen[it.Page] = true
			}
			walk(it.Children)
		}
	}
	walk(p.Nav)
	var rests []*NavItem
	var expand func([]*NavItem) []*NavItem
	expand = func(items []*NavItem) []*NavItem {
		var out []*NavItem
		for _, it := range items {
			switch {
			case it.pattern == "":
				it.Children = expand(it.Children)
				out = append(out, it)
			case isRest(it.pattern):
				rests = append(rests, it)
				out = append(out, it)
			default:
				got := p.wildcard(it, pages, seen)
				if it.Title != "" && len(got) > 0 {
					got = []*NavItem{{Title: it.Title, Children: got, Line: it.Line}}
				}
				out = append(out, got...)
			}
		}
		return out
	}
	p.Nav = expand(p.Nav)
	p.rest(rests, pages, seen)
	p.Nav = splice(p.Nav)
}

// wildcard is literate-nav's expansion of one wildcard: the matching
// pages, and the matching folders as sections of their pages, in
// MkDocs's order; a pattern ending in / matches folders only.
func (p *Project) wildcard(it *NavItem, pages []string, seen map[string]bool) []*NavItem {
	pat := strings.TrimPrefix(path.Clean(strings.TrimSuffix(it.pattern, "/")), "./")
	dirsOnly := strings.HasSuffix(it.pattern, "/")
	var out []*NavItem
	matched := false
	for _, item := range AutoNav(pages) {
		matchItem(item, "", pat, dirsOnly, seen, &out, &matched)
	}
	if !matched {
		p.warnf(it.Line, "nav: %q (literate-nav) matches no page of docs_dir %s: left out", it.pattern, p.DocsDir)
	}
	return out
}

// matchItem walks AutoNav's tree below dir: a page matching pat is
// added (once), a folder matching pat is added as a section of its
// pages not yet seen; a folder that does not match is searched further.
func matchItem(it *NavItem, dir, pat string, dirsOnly bool, seen map[string]bool, out *[]*NavItem, matched *bool) {
	if it.Page != "" {
		if dirsOnly || !pathglob.Match(pat, it.Page) {
			return
		}
		*matched = true
		if !seen[it.Page] {
			seen[it.Page] = true
			*out = append(*out, &NavItem{Page: it.Page, Line: it.Line})
		}
		return
	}
	sub := sectionDir(it, dir)
	if sub != "" && pathglob.Match(pat, sub) {
		*matched = true
		kids := unseen(it.Children, seen)
		if len(kids) > 0 {
			*out = append(*out, &NavItem{Title: it.Title, Children: kids})
		}
		return
	}
	for _, c := range it.Children {
		matchItem(c, sub, pat, dirsOnly, seen, out, matched)
	}
}

// sectionDir is the folder of an AutoNav section: the folder of its
// first page, cut to one level below parent.
func sectionDir(sec *NavItem, parent string) string {
	pages := flatPages(sec.Children)
	if len(pages) == 0 {
		return ""
	}
	rest := strings.TrimPrefix(path.Dir(pages[0]), parent)
	rest = strings.TrimPrefix(rest, "/")
	first, _, _ := strings.Cut(rest, "/")
	if parent == "" {
		return first
	}
	return parent + "/" + first
}

func flatPages(items []*NavItem) []string {
	var out []string
	for _, it := range items {
		if it.Page != "" {
			out = append(out, it.Page)
		}
		out = append(out, flatPages(it.Children)...)
	}
	return out
}

// unseen copies an AutoNav tree without the pages seen, marking the
// others seen; sections left empty are dropped.
func unseen(items []*NavItem, seen map[string]bool) []*NavItem {
	var out []*NavItem
	for _, it := range items {
		if it.Page != "" {
			if !seen[it.Page] {
				seen[it.Page] = true
				out = append(out, &NavItem{Page: it.Page})
			}
			continue
		}
		if kids := unseen(it.Children, seen); len(kids) > 0 {
			out = append(out, &NavItem{Title: it.Title, Children: kids})
		}
	}
	return out
}

var restFilter = regexp.MustCompile(`^\.{3}\s*\|\s*(?:(regex|glob)=)?(.*)$`)

// rest gives awesome-pages' rest entries the pages the nav does not
// name: those with a pattern (glob over the docs-relative path, or a
// regular expression) first, in nav order, then "..." the others; each
// as MkDocs nests them (folders as sections), or flat with "| flat".
func (p *Project) rest(rests []*NavItem, pages []string, seen map[string]bool) {
	var left []string
	for _, pg := range pages {
		if !seen[pg] {
			left = append(left, pg)
		}
	}
	var all []*NavItem
	for _, it := range rests {
		m := restFilter.FindStringSubmatch(strings.TrimSpace(it.pattern))
		if m == nil || strings.TrimSpace(m[2]) == "flat" {
			all = append(all, it)
			continue
		}
		match := func(pg string) bool { return pathglob.Match(strings.TrimSpace(m[2]), pg) }
		if m[1] == "regex" {
			re, err := regexp.Compile(strings.TrimSpace(m[2]))
			if err != nil {
				p.warnf(it.Line, "nav: %q: %v: left out", it.pattern, err)
				continue
			}
			match = re.MatchString
		}
		var got, still []string
		for _, pg := range left {
			if match(pg) {
				got = append(got, pg)
			} else {
				still = append(still, pg)
			}
		}
		left = still
		// The pages a pattern picks, without the folders that hold
		// them all (guides/*.md in a Guides section is its pages).
		it.Children = AutoNav(got)
		for len(it.Children) == 1 && it.Children[0].IsSection() {
			it.Children = it.Children[0].Children
		}
	}
	for i, it := range all {
		if i > 0 {
			p.warnf(it.Line, "nav: a second %q: awesome-pages allows one rest entry; left out", it.pattern)
			continue
		}
		if strings.HasSuffix(strings.TrimSpace(it.pattern), "flat") {
			for _, pg := range left {
				it.Children = append(it.Children, &NavItem{Page: pg})
			}
		} else {
			it.Children = AutoNav(left)
		}
	}
}

// splice puts each rest entry's pages and sections in its place.
func splice(items []*NavItem) []*NavItem {
	var out []*NavItem
	for _, it := range items {
		if it.pattern != "" {
			out = append(out, splice(it.Children)...)
			continue
		}
		it.Children = splice(it.Children)
		out = append(out, it)
	}
	return out
}

// navPluginFile warns, once, of the first nav file of an enabled nav
// plugin that kbook does not read: awesome-pages' .pages, literate-nav's
// nav_file (SUMMARY.md) at the top of docs_dir.
func (p *Project) navPluginFile(rel string, f *Files) {
	if f.navFileWarned {
		return
	}
	_, awesome := p.Plugins[awesomePages]
	lit, literate := p.Plugins[literateNav]
	navFile, _ := lit["nav_file"].(string)
	if navFile == "" {
		navFile = "SUMMARY.md"
	}
	var msg string
	switch {
	case awesome && path.Base(rel) == ".pages":
		msg = "awesome-pages' .pages files are not read by kbook: the sidebar follows mkdocs.yml's nav (its ... entries expanded) or MkDocs's own, without their titles, order or hidden entries"
	case literate && rel == navFile:
		msg = "literate-nav's nav file is not read by kbook: the sidebar follows mkdocs.yml's nav (its wildcards expanded) or MkDocs's own"
	default:
		return
	}
	f.navFileWarned = true
	f.Warnings = append(f.Warnings, Warning{File: path.Join(p.DocsDir, rel), Msg: msg})
}

// String shows a nav item in tests and messages.
func (n *NavItem) String() string {
	switch {
	case n.pattern != "":
		return "pattern " + n.pattern
	case n.Page != "":
		return n.Title + "=" + n.Page
	case n.URL != "":
		return n.Title + "=" + n.URL
	}
	return fmt.Sprintf("%s%v", n.Title, n.Children)
}
