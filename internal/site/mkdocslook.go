package site

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/mkdocs"
	"github.com/k0rdent/kbook/internal/mkdocs/markdown"
)

// Section is a top folder of docs_dir that holds pages but no index
// page: Hugo makes it a section all the same, which the site names as
// MkDocs names it (not with Hugo's pluralised folder name).
type Section struct {
	Label string
	// Weight is the nav place of its first page (0: none in the nav).
	Weight int
}

// Look is what of an MkDocs project's look the theme shows: Material's
// logo, favicon, palette colours, extra stylesheets and scripts, and
// extra.social's links. Paths are below the version root, or URLs of
// another host (the look-url.html partial writes both).
type Look struct {
	Logo    string `json:"logo,omitempty"`
	LogoSVG string `json:"logoSVG,omitempty"`
	Favicon string `json:"favicon,omitempty"`
	Primary string `json:"primary,omitempty"`
	// OnPrimary is the colour of text on the primary colour (the header's).
	OnPrimary string   `json:"onPrimary,omitempty"`
	Accent    string   `json:"accent,omitempty"`
	Dark      string   `json:"dark,omitempty"`
	CSS       []string `json:"css,omitempty"`
	JS        []Script `json:"js,omitempty"`
	Social    []Social `json:"social,omitempty"`
}

// Script is an extra_javascript entry.
type Script struct {
	Src   string `json:"src"`
	Type  string `json:"type,omitempty"`
	Async bool   `json:"async,omitempty"`
	Defer bool   `json:"defer,omitempty"`
}

// Social is an extra.social link: its icon's SVG when the icon sets are
// installed, else its name is shown.
type Social struct {
	Link string `json:"link"`
	Name string `json:"name"`
	Icon string `json:"icon,omitempty"`
}

// mkdocsSections names the folders of an MkDocs project as its nav does:
// a folder is named by the outermost nav section whose pages all lie
// below it (the section that holds "Overview: admin/index.md" names
// admin/), else, without one, by its index page (its nav label), else
// by MkDocs's title for a folder name ("resource-references" is
// "Resource references"). A folder's index page gets the name as
// kbook.section (breadcrumbs and cards show it for the folder, the page's
// own label for the page); top folders without one get a Section. auto
// says the nav is MkDocs's own of a project without one (mkdocs.AutoNav),
// whose sections are always their folders' names.
func mkdocsSections(p *Project, weights map[string]int, auto bool) {
	ms := p.MkDocs
	mk := ms.Config
	built := map[string]bool{}
	index := map[string]*Page{}
	folders := map[string]int{} // folder -> first nav weight below it (0: none)
	for _, pg := range p.Pages {
		rel := docsRel(mk, pg.File)
		built[rel] = true
		dir := path.Dir(pg.Path)
		if path.Base(pg.Path) == "_index.md" && dir != "." {
			index[dir] = pg
		}
		w := weights[rel]
		for d := dir; d != "." && d != "/"; d = path.Dir(d) {
			if cur, seen := folders[d]; !seen || (w > 0 && (cur == 0 || w < cur)) {
				folders[d] = w
			}
		}
	}
	named := map[string]string{}
	var walk func(items []*mkdocs.NavItem)
	walk = func(items []*mkdocs.NavItem) {
		for _, it := range items {
			if !it.IsSection() {
				continue
			}
			if dir := navFolder(it, built); dir != "" && named[dir] == "" && it.Title != "" {
				named[dir] = it.Title
			}
			walk(it.Children)
		}
	}
	walk(mk.Nav)
	ms.Sections = map[string]Section{}
	for dir, w := range folders {
		label := named[dir]
		if label == "" && (auto || index[dir] == nil) {
			label = mkdocs.FileTitle(dir + "/index.md")
		}
		if pg := index[dir]; pg != nil {
			if label != "" {
				theme(pg)["section"] = label
			}
			continue
		}
		if !strings.Contains(dir, "/") {
			// Hugo makes a top folder a section without an index page,
			// a deeper one not (its pages are their parent's)
			ms.Sections[dir] = Section{Label: label, Weight: w}
		}
	}
}

// navFolder is the deepest folder holding every built page of a nav
// section ("" for none, or the top). A section whose only page is a
// folder's index page names nothing: that folder is the page, named by
// its own label (k0rdent's "Governance: CNCF: governance/cncf/ai/index.md"
// would otherwise name the page's folder "Governance" and the page's
// breadcrumbs read Governance / Governance).
func navFolder(it *mkdocs.NavItem, built map[string]bool) string {
	var dirs [][]string
	pages := map[string]bool{}
	var walk func(items []*mkdocs.NavItem)
	walk = func(items []*mkdocs.NavItem) {
		for _, c := range items {
			if c.Page != "" && built[c.Page] {
				pages[c.Page] = true
				d := path.Dir(sectionPath(c.Page))
				if d == "." {
					d = ""
				}
				dirs = append(dirs, strings.Split(d, "/"))
			}
			walk(c.Children)
		}
	}
	walk(it.Children)
	if len(dirs) == 0 {
		return ""
	}
	if len(pages) == 1 {
		for pg := range pages {
			if sectionPath(pg) != pg {
				return ""
			}
		}
	}
	common := dirs[0]
	for _, d := range dirs[1:] {
		n := 0
		for n < len(common) && n < len(d) && common[n] == d[n] {
			n++
		}
		common = common[:n]
	}
	return strings.Join(common, "/")
}

// docsRel is a page file's path below docs_dir.
func docsRel(mk *mkdocs.Project, file string) string {
	if mk.DocsDir == "." || mk.DocsDir == "" {
		return file
	}
	return strings.TrimPrefix(file, mk.DocsDir+"/")
}

// mkdocsPrevNext gives each page of the nav its previous and next page
// in the nav's order, with their nav labels, as MkDocs's footer has
// them, and its breadcrumbs: the nav sections holding its first place,
// as Material's navigation path shows them (each links to its first
// page; a last section named as the page, "Overview: Overview:
// x/index.md", is left out: the trail never reads Overview / Overview). Pages out of the nav have none of these
// (as in MkDocs): their breadcrumbs are their folders.
func mkdocsPrevNext(p *Project, nav []NavEntry) {
	byURL := map[string]*Page{}
	for _, pg := range p.Pages {
		byURL[pg.URL()] = pg
	}
	type place struct {
		NavEntry
		crumbs []map[string]any
	}
	var order []place
	seen := map[string]bool{}
	var walk func([]NavEntry, []map[string]any)
	walk = func(es []NavEntry, crumbs []map[string]any) {
		for _, e := range es {
			if len(e.Children) > 0 {
				walk(e.Children, append(slices.Clip(crumbs), map[string]any{"title": e.Title, "url": firstPage(e.Children, byURL)}))
				continue
			}
			if e.External || byURL[e.URL] == nil || seen[e.URL] {
				continue
			}
			seen[e.URL] = true
			order = append(order, place{e, crumbs})
		}
	}
	walk(nav, nil)
	link := func(e NavEntry) map[string]any {
		return map[string]any{"url": e.URL, "title": e.Title}
	}
	for i, e := range order {
		kb := theme(byURL[e.URL])
		if i > 0 {
			kb["prev"] = link(order[i-1].NavEntry)
		}
		if i+1 < len(order) {
			kb["next"] = link(order[i+1].NavEntry)
		}
		crumbs := e.crumbs
		if n := len(crumbs); n > 0 && crumbs[n-1]["title"] == e.Title {
			crumbs = crumbs[:n-1]
		}
		kb["crumbs"] = append([]map[string]any{}, crumbs...)
	}
}

// firstPage is the URL of the first page of the site in a nav section
// ("" for none).
func firstPage(es []NavEntry, byURL map[string]*Page) string {
	for _, e := range es {
		if len(e.Children) > 0 {
			if u := firstPage(e.Children, byURL); u != "" {
				return u
			}
			continue
		}
		if !e.External && byURL[e.URL] != nil {
			return e.URL
		}
	}
	return ""
}

// theme is a page's Theme, made on first use.
func theme(pg *Page) map[string]any {
	if pg.Theme == nil {
		pg.Theme = map[string]any{}
	}
	return pg.Theme
}

// materialPrimary and materialAccent are Material for MkDocs's palette
// colours by name.
var materialPrimary = map[string]string{
	"red": "#ef5350", "pink": "#e92063", "purple": "#ab47bd", "deep purple": "#7e56c2", "indigo": "#4051b5",
	"blue": "#2094f3", "light blue": "#02a6f2", "cyan": "#00bdd6", "teal": "#009485", "green": "#4cae4f",
	"light green": "#8bc34b", "lime": "#cbdc38", "yellow": "#ffec3d", "amber": "#ffc105", "orange": "#ffa724",
	"deep orange": "#ff6e42", "brown": "#795649", "grey": "#757575", "blue grey": "#546d78", "black": "#000000",
	"white": "#ffffff",
}

// materialDarkText are the primary colours Material writes black text on.
var materialDarkText = map[string]bool{"lime": true, "yellow": true, "amber": true, "orange": true, "white": true}

var materialAccent = map[string]string{
	"red": "#ff1a47", "pink": "#f50056", "purple": "#df41fb", "deep purple": "#7c4dff", "indigo": "#526cfe",
	"blue": "#4287ff", "light blue": "#0091eb", "cyan": "#00bad6", "teal": "#00bda4", "green": "#00c753",
	"light green": "#63de17", "lime": "#b0eb00", "yellow": "#ffd500", "amber": "#ffaa00", "orange": "#ff9100",
	"deep orange": "#ff6e42",
}

// mkdocsLook reads theme.logo, theme.favicon, theme.palette, extra_css,
// extra_javascript and extra.social; a file found neither in docs_dir
// nor in theme.custom_dir is a warning at its mkdocs.yml line. A URL of
// another host is kept as MkDocs keeps it (a <script src> or <link> to it), unlike a script or
// stylesheet in a page's own HTML (dropForeignAssets): mkdocs.yml is the
// site's owner choosing what every page loads.
func mkdocsLook(ms *MkDocsSite, icons markdown.IconSource) {
	mk := ms.Config
	raw := mk.Raw
	warn := func(key, format string, a ...any) {
		line := mk.Line(key)
		if line == 0 {
			line = mk.Line(strings.Split(key, ".")[0])
		}
		ms.Warnings = append(ms.Warnings, fmt.Sprintf("%s:%d: %s", mk.File, line, fmt.Sprintf(format, a...)))
	}
	asset := func(key, what, p string) string {
		if p == "" {
			return ""
		}
		if mkdocs.IsExternal(p) {
			// written as MkDocs writes it: the reader's browser loads it
			// from that host; nothing is fetched at build time
			return p
		}
		// a query or fragment (css/x.css?v=2) stays in the URL
		file, rest := p, ""
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			file, rest = p[:i], p[i:]
		}
		rel := path.Clean(strings.TrimPrefix(file, "/"))
		if !slices.Contains(ms.Assets, rel) && !slices.Contains(ms.ThemeFiles, rel) {
			instead := "left out"
			if what == "theme.logo" || what == "theme.favicon" {
				instead = "kbook's own is shown"
			}
			where := mk.DocsDir
			if mk.CustomDir != "" {
				where += " or theme.custom_dir " + mk.CustomDir
			}
			warn(key, "%s %s: no such file in %s (%s)", what, p, where, instead)
			return ""
		}
		return rel + rest
	}
	look := &ms.Look
	if theme, ok := raw["theme"].(map[string]any); ok {
		s, _ := theme["logo"].(string)
		look.Logo = asset("theme.logo", "theme.logo", s)
		if look.Logo == "" {
			if ic, ok := theme["icon"].(map[string]any); ok {
				if name, ok := ic["logo"].(string); ok && icons != nil {
					if svg, ok := icons.Icon(path.Dir(name), path.Base(name)); ok {
						look.LogoSVG = svg
					}
				}
			}
		}
		s, _ = theme["favicon"].(string)
		look.Favicon = asset("theme.favicon", "theme.favicon", s)
		var schemes []map[string]any
		switch pl := theme["palette"].(type) {
		case map[string]any:
			schemes = append(schemes, pl)
		case []any:
			for _, e := range pl {
				if m, ok := e.(map[string]any); ok {
					schemes = append(schemes, m)
				}
			}
		}
		for _, sc := range schemes {
			name, _ := sc["scheme"].(string)
			primary, _ := sc["primary"].(string)
			accent, _ := sc["accent"].(string)
			primary = strings.ToLower(strings.ReplaceAll(primary, "-", " "))
			c := materialPrimary[primary]
			if name == "slate" {
				if look.Dark == "" {
					look.Dark = c
				}
				continue
			}
			if look.Primary == "" && c != "" {
				look.Primary = c
				if materialDarkText[primary] {
					look.OnPrimary = "#000000de"
				}
			}
			if look.Accent == "" {
				look.Accent = materialAccent[strings.ToLower(strings.ReplaceAll(accent, "-", " "))]
			}
		}
	}
	for i, e := range list(raw["extra_css"]) {
		if s, ok := e.(string); ok {
			if rel := asset(fmt.Sprintf("extra_css.%d", i), "extra_css", s); rel != "" {
				look.CSS = append(look.CSS, rel)
			}
		}
	}
	for i, e := range list(raw["extra_javascript"]) {
		var sc Script
		switch x := e.(type) {
		case string:
			sc.Src = x
		case map[string]any:
			sc.Src, _ = x["path"].(string)
			sc.Type, _ = x["type"].(string)
			sc.Async, _ = x["async"].(bool)
			sc.Defer, _ = x["defer"].(bool)
		}
		if sc.Src = asset(fmt.Sprintf("extra_javascript.%d", i), "extra_javascript", sc.Src); sc.Src != "" {
			if sc.Type == "" && strings.HasSuffix(strings.SplitN(sc.Src, "?", 2)[0], ".mjs") {
				sc.Type = "module"
			}
			look.JS = append(look.JS, sc)
		}
	}
	for _, e := range list(mk.Extra["social"]) {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		s := Social{}
		s.Link, _ = m["link"].(string)
		s.Name, _ = m["name"].(string)
		if s.Link == "" {
			continue
		}
		if icon, ok := m["icon"].(string); ok && icons != nil {
			s.Icon, _ = icons.Icon(path.Dir(icon), path.Base(icon))
		}
		if s.Name == "" {
			// Material's title: the link's host
			s.Name = s.Link
			if u, err := url.Parse(s.Link); err == nil && u.Host != "" {
				s.Name = u.Host
			}
		}
		look.Social = append(look.Social, s)
	}
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}
