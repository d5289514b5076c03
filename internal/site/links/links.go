package links

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/frontmatter"
	"github.com/k0rdent/kbook/internal/textpos"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Rule IDs of link findings.
const (
	RuleBrokenLink   = "link-broken"
	RuleBrokenAnchor = "anchor-broken"
)

// Page is one page of the site as the checker sees it.
type Page struct {
	// File is the source, relative to the docs root; it names findings.
	File string
	// URL is the page's path below the version root ("a/b/", "" for home).
	URL string
	// Source is the Markdown; nil for pages kbook generates.
	Source []byte
	// Anchors are ids the page has besides its headings (runbook steps).
	Anchors []string
	// Index is true for a section or home page (_index.md).
	Index bool
}

// PageURL maps a content path ("a/b.md", "a/_index.md") to the page's
// URL path below the version root, as Hugo writes kbook's site: pretty
// ("a/b/" for a/b.md, "a/" for a/_index.md or a/index.md, "" for the
// home) and lower case, every segment, section pages' too (Hugo lowercases
// paths unless disablePathToLower, which kbook's Hugo config leaves
// unset: content/Foo/_index.md is written to foo/index.html).
func PageURL(p string) string {
	p = filepath.ToSlash(p)
	base := strings.TrimPrefix(strings.TrimSuffix(p, path.Ext(p)), "/")
	switch {
	case base == "_index" || base == "index" || base == ".":
		return ""
	case strings.HasSuffix(base, "/_index") || strings.HasSuffix(base, "/index"):
		base = base[:strings.LastIndex(base, "/")]
	}
	return strings.ToLower(base) + "/"
}

// Site is what links may point at.
type Site struct {
	Pages []Page
	// Files are other paths below the version root that exist (static
	// files, page resources, verification.json).
	Files []string
	// Versions are the version and alias folders a link may name as its
	// first segment ("/v0.1/guide/"); Out is where their built pages are.
	Versions []string
	Out      string
	// Built are the versions built in the same run, by version and alias
	// folder (this one's own among them): a link into one of them is
	// checked against its pages, not against what Out held before.
	Built map[string]*Site
}

var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM, extension.DefinitionList, extension.Footnote),
	goldmark.WithParserOptions(parser.WithAttribute()),
)

type link struct {
	dest string
	line int
}

type parsed struct {
	anchors map[string]bool
	links   []link
}

// index is one version's pages and files, parsed once.
type index struct {
	pages  []*Page
	byURL  map[string]*Page
	byFile map[string]*Page
	info   map[*Page]*parsed
	files  map[string]bool
}

func newIndex(s *Site) *index {
	x := &index{byURL: map[string]*Page{}, byFile: map[string]*Page{}, info: map[*Page]*parsed{}, files: map[string]bool{}}
	for i := range s.Pages {
		p := &s.Pages[i]
		x.pages = append(x.pages, p)
		x.byURL[p.URL] = p
		x.byFile[p.File] = p
		x.info[p] = parse(p)
	}
	// Hugo makes a section page for every folder of pages.
	for i := range s.Pages {
		u := strings.TrimSuffix(s.Pages[i].URL, "/")
		for u != "" && u != "." {
			u = path.Dir(u)
			key := u + "/"
			if u == "." {
				key = ""
			}
			if _, ok := x.byURL[key]; !ok {
				p := &Page{File: "(section /" + key + ")", URL: key}
				x.byURL[key] = p
				x.info[p] = parse(p)
			}
		}
	}
	for _, f := range s.Files {
		x.files[strings.TrimPrefix(f, "/")] = true
	}
	return x
}

// checker resolves the links of one site.
type checker struct {
	self     *index
	versions map[string]bool
	out      string
	built    map[string]*Site
	indexes  map[*Site]*index
}

// Check returns a finding for every internal link that does not resolve.
func Check(s *Site) []findings.Finding {
	c := &checker{self: newIndex(s), versions: map[string]bool{}, out: s.Out, built: s.Built, indexes: map[*Site]*index{}}
	for _, v := range s.Versions {
		c.versions[v] = true
	}
	var out []findings.Finding
	for _, p := range c.self.pages {
		for _, l := range c.self.info[p].links {
			if msg := c.resolve(p, l.dest); msg != "" {
				rule := RuleBrokenLink
				if strings.Contains(msg, "no anchor") {
					rule = RuleBrokenAnchor
				}
				out = append(out, findings.Finding{Rule: rule, Severity: findings.Error, File: p.File, Line: l.line, Message: msg})
			}
		}
	}
	findings.Sort(out)
	return out
}

// version is the index of a version built in the same run (nil if none).
func (c *checker) version(folder string) *index {
	s := c.built[folder]
	if s == nil {
		return nil
	}
	x := c.indexes[s]
	if x == nil {
		x = newIndex(s)
		c.indexes[s] = x
	}
	return x
}

// IsMarkdownPath reports whether a link's path names a Markdown file:
// "a.md", or "a.md/", which MkDocs normalises to a.md as it resolves it
// (posixpath.normpath) and GitHub serves as the file.
func IsMarkdownPath(p string) bool {
	return strings.HasSuffix(strings.ToLower(strings.TrimSuffix(p, "/")), ".md")
}

// resolve returns why dest, a link on page p, does not resolve ("" if it does).
func (c *checker) resolve(p *Page, dest string) string {
	u, err := url.Parse(dest)
	if err != nil {
		return fmt.Sprintf("link %q does not parse: %v", dest, err)
	}
	if u.Scheme != "" || u.Host != "" || strings.HasPrefix(dest, "//") {
		return "" // external
	}
	frag := u.Fragment
	target := p
	x, of := c.self, ""
	switch {
	case u.Path == "":
	case IsMarkdownPath(u.Path) && !strings.HasPrefix(u.Path, "/"):
		// A path to the Markdown file, relative to the source file (as
		// on GitHub) or to the page's place in the site (as in Hugo).
		f := path.Clean(path.Join(path.Dir(p.File), u.Path))
		target = x.byFile[f]
		if target == nil {
			base := strings.TrimSuffix(p.URL, "/")
			if !p.Index {
				base = path.Dir(base)
			}
			target = x.byURL[PageURL(path.Clean(path.Join(base, u.Path)))]
		}
		if target == nil {
			return fmt.Sprintf("link %q: no page %s", dest, f)
		}
	default:
		var abs string
		where := "in this version"
		if strings.HasPrefix(u.Path, "/") {
			abs = strings.TrimPrefix(path.Clean(u.Path), "/")
			if first, rest, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/"); c.built[first] != nil {
				x, where, of = c.version(first), "in version "+first, " of version "+first
				abs = strings.TrimPrefix(path.Clean("/"+rest), "/")
			} else if c.versions[first] {
				return checkBuilt(dest, c.out, first, rest, frag)
			}
		} else {
			abs = strings.TrimPrefix(path.Clean(path.Join("/"+p.URL, u.Path)), "/")
		}
		if abs == "." {
			abs = ""
		}
		key := abs
		if key != "" {
			key += "/"
		}
		target = x.byURL[strings.ToLower(key)]
		if target == nil {
			if x.files[abs] {
				return ""
			}
			if !strings.HasPrefix(u.Path, "/") {
				// A file beside the source (conf.yaml, run.sh), as MkDocs
				// and GitHub read a relative link: the build rewrites the
				// written href to it.
				dir := strings.TrimSuffix(p.URL, "/")
				if !p.Index {
					dir = path.Dir(dir)
				}
				if f := strings.TrimPrefix(path.Clean(path.Join("/"+dir, u.Path)), "/"); x.files[f] {
					return ""
				}
			}
			return fmt.Sprintf("link %q: no page /%s %s", dest, key, where)
		}
	}
	if frag == "" {
		return ""
	}
	if a := x.info[target].anchors; !a[frag] {
		return fmt.Sprintf("link %q: page %s%s has no anchor #%s%s", dest, target.File, of, frag, suggest(a, frag))
	}
	return ""
}

var idAttr = regexp.MustCompile(`\sid="([^"]+)"`)

// checkBuilt resolves a link into another version folder of out.
func checkBuilt(dest, out, version, rest, frag string) string {
	if out == "" {
		return ""
	}
	file := filepath.Join(out, version, filepath.FromSlash(rest))
	if fi, err := os.Stat(file); err == nil && fi.IsDir() {
		file = filepath.Join(file, "index.html")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Sprintf("link %q: version %s has no page /%s", dest, version, rest)
	}
	if frag == "" {
		return ""
	}
	for _, m := range idAttr.FindAllSubmatch(data, -1) {
		if string(m[1]) == frag {
			return ""
		}
	}
	return fmt.Sprintf("link %q: that page of version %s has no anchor #%s", dest, version, frag)
}

func suggest(anchors map[string]bool, frag string) string {
	var close []string
	for a := range anchors {
		if strings.Contains(a, frag) || strings.Contains(frag, a) {
			close = append(close, "#"+a)
		}
	}
	sort.Strings(close)
	if len(close) == 0 || len(close) > 3 {
		return ""
	}
	return " (did you mean " + strings.Join(close, ", ") + "?)"
}

var htmlID = regexp.MustCompile(`\b(?:id|name)="([^"]+)"`)

// parse collects a page's anchors and links with their lines.
func parse(p *Page) *parsed {
	res := &parsed{anchors: map[string]bool{}}
	for _, a := range p.Anchors {
		res.anchors[a] = true
	}
	if p.Source == nil {
		return res
	}
	src := frontmatter.Blank(p.Source)
	doc := md.Parser().Parse(text.NewReader(src))
	lines := textpos.NewLines(src)
	seen := map[string]int{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			id := ""
			if v, ok := n.AttributeString("id"); ok {
				if b, ok := v.([]byte); ok {
					id = string(b)
				}
			}
			if id == "" {
				id = Anchor(plain(n, src))
				if k := seen[id]; k > 0 {
					seen[id] = k + 1
					id = fmt.Sprintf("%s-%d", id, k)
				} else {
					seen[id] = 1
				}
			}
			res.anchors[id] = true
		case *ast.Link:
			res.links = append(res.links, link{dest: string(n.Destination), line: lineOf(n, src, lines, n.Destination)})
		case *ast.HTMLBlock, *ast.RawHTML:
			var b bytes.Buffer
			if hb, ok := n.(*ast.HTMLBlock); ok {
				for i := 0; i < hb.Lines().Len(); i++ {
					seg := hb.Lines().At(i)
					b.Write(seg.Value(src))
				}
			} else {
				rh := n.(*ast.RawHTML)
				for i := 0; i < rh.Segments.Len(); i++ {
					seg := rh.Segments.At(i)
					b.Write(seg.Value(src))
				}
			}
			for _, m := range htmlID.FindAllSubmatch(b.Bytes(), -1) {
				res.anchors[string(m[1])] = true
			}
		}
		return ast.WalkContinue, nil
	})
	return res
}

// Anchor is the id Hugo gives a heading with the given text (goldmark's
// "github" auto IDs): lower case, letters, digits, '_' and '-' kept,
// spaces become '-', everything else dropped.
func Anchor(s string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r == ' ' || r == '-':
			b.WriteRune('-')
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		}
	}
	if b.Len() == 0 {
		return "heading"
	}
	return b.String()
}

func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// lineOf finds the source line of a link: the destination's first
// occurrence after the start of the link's block.
func lineOf(n ast.Node, src []byte, ls textpos.Lines, dest []byte) int {
	start := 0
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
			start = p.Lines().At(0).Start
			break
		}
	}
	if i := bytes.Index(src[start:], append([]byte("("), dest...)); i >= 0 {
		return ls.Line(start + i + 1)
	}
	if i := bytes.Index(src[start:], dest); i >= 0 {
		return ls.Line(start + i)
	}
	return ls.Line(start)
}
