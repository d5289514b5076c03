package mkdocs

import (
	"net/url"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// NavItem is one entry of mkdocs.yml's nav: a page, a link or a section.
type NavItem struct {
	// Title is the label ("" for a bare page path: the page's own title).
	Title string
	// Page is the docs-relative Markdown file ("a/b.md"), for a page.
	Page string
	// URL is the link's target, for an external or absolute link.
	URL string
	// Children are the entries of a section.
	Children []*NavItem
	// Line is where the entry is in mkdocs.yml.
	Line int

	// pattern is a nav plugin's pattern, until Files expands it.
	pattern string
}

// IsSection reports whether the item is a section.
func (n *NavItem) IsSection() bool { return n.Page == "" && n.URL == "" && n.pattern == "" }

func (p *Project) readNav(v *yaml.Node) ([]*NavItem, error) {
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		return nil, nil
	case v.Kind != yaml.SequenceNode:
		return nil, p.errorf(v, "nav: want a list of pages and sections")
	}
	var out []*NavItem
	for _, c := range v.Content {
		c = resolve(c)
		switch c.Kind {
		case yaml.ScalarNode:
			it, err := p.navTarget("", c)
			if err != nil {
				return nil, err
			}
			if it != nil {
				out = append(out, it)
			}
		case yaml.MappingNode:
			if len(c.Content) != 2 {
				return nil, p.errorf(c, "nav: an entry is one title: page, title: link or title: [entries]")
			}
			title, target := c.Content[0].Value, resolve(c.Content[1])
			if target.Kind == yaml.SequenceNode || (target.Kind == yaml.ScalarNode && target.Tag == "!!null") {
				kids, err := p.readNav(target)
				if err != nil {
					return nil, err
				}
				out = append(out, &NavItem{Title: title, Children: kids, Line: c.Content[0].Line})
				continue
			}
			if target.Kind != yaml.ScalarNode {
				return nil, p.errorf(target, "nav: %s: want a page, a link or a list of entries", title)
			}
			it, err := p.navTarget(title, target)
			if err != nil {
				return nil, err
			}
			if it != nil {
				it.Line = c.Content[0].Line
				out = append(out, it)
			}
		default:
			return nil, p.errorf(c, "nav: want a page, title: page or title: [entries]")
		}
	}
	return out, nil
}

func (p *Project) navTarget(title string, n *yaml.Node) (*NavItem, error) {
	s, err := scalar(n)
	if err != nil {
		return nil, p.errorf(n, "nav: %v", err)
	}
	if isNavGlob(s) {
		// A nav plugin's pattern: Files expands it (navglob.go).
		return &NavItem{Title: title, pattern: s, Line: n.Line}, nil
	}
	it := &NavItem{Title: title, Line: n.Line}
	if IsExternal(s) || strings.HasPrefix(s, "/") {
		it.URL = s
		return it, nil
	}
	u, _ := url.Parse(s)
	if u == nil || !isMarkdown(u.Path) {
		// MkDocs takes any other relative target as a link too.
		it.URL = s
		return it, nil
	}
	it.Page = path.Clean(strings.TrimPrefix(u.Path, "./"))
	return it, nil
}

// isNavGlob reports whether a nav target is a nav plugin's pattern:
// "...", "... | flat", "... | regex=..." (awesome-pages) or a path with
// * or ? (literate-nav, awesome-pages).
func isNavGlob(s string) bool {
	s = strings.TrimSpace(s)
	return isRest(s) || !IsExternal(s) && strings.ContainsAny(s, "*?")
}

// IsExternal reports whether a link leaves the site (scheme or //host).
func IsExternal(s string) bool {
	if strings.HasPrefix(s, "//") {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme != ""
}

func isMarkdown(p string) bool {
	p = strings.ToLower(p)
	return strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".markdown")
}

// NavPages lists the nav's pages in order, each once (its first place).
func (p *Project) NavPages() []*NavItem {
	var out []*NavItem
	seen := map[string]bool{}
	var walk func([]*NavItem)
	walk = func(items []*NavItem) {
		for _, it := range items {
			if it.Page != "" && !seen[it.Page] {
				seen[it.Page] = true
				out = append(out, it)
			}
			walk(it.Children)
		}
	}
	walk(p.Nav)
	return out
}

// AutoNav is the nav MkDocs makes of a project whose mkdocs.yml has
// none (mkdocs/structure/nav.py's nest_paths over its pages in
// mkdocs/structure/files.py's order): a folder's pages, its index (or
// README) first, then its subfolders, each a section titled as MkDocs
// titles a folder ("resource-references" is "Resource references");
// pages keep their own titles. pages are docs-relative.
func AutoNav(pages []string) []*NavItem {
	sorted := slices.Clone(pages)
	slices.SortFunc(sorted, func(a, b string) int {
		da, db := strings.Split(path.Dir(a), "/"), strings.Split(path.Dir(b), "/")
		if path.Dir(a) == "." {
			da = nil
		}
		if path.Dir(b) == "." {
			db = nil
		}
		if c := slices.Compare(da, db); c != 0 {
			return c
		}
		if ia, ib := isIndex(a), isIndex(b); ia != ib {
			if ia {
				return -1
			}
			return 1
		}
		return strings.Compare(path.Base(a), path.Base(b))
	})
	var nav []*NavItem
	for _, pg := range sorted {
		branch := &nav
		if d := path.Dir(pg); d != "." {
			for _, part := range strings.Split(d, "/") {
				title := DirTitle(part)
				var sec *NavItem
				for _, it := range *branch {
					if it.IsSection() && it.Title == title {
						sec = it
						break
					}
				}
				if sec == nil {
					sec = &NavItem{Title: title}
					*branch = append(*branch, sec)
				}
				branch = &sec.Children
			}
		}
		*branch = append(*branch, &NavItem{Page: pg})
	}
	return nav
}

// isIndex reports whether a page is its folder's index page to MkDocs's
// order (index.md or README.md).
func isIndex(rel string) bool {
	stem := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	return stem == "index" || stem == "README"
}

// DirTitle is MkDocs's title of a folder (dirname_to_title): "_" and
// "-" as spaces, capitalised when it was all lower case.
func DirTitle(name string) string {
	t := strings.NewReplacer("-", " ", "_", " ").Replace(name)
	if strings.ToLower(t) == t && t != "" {
		t = strings.ToUpper(t[:1]) + t[1:]
	}
	return t
}
