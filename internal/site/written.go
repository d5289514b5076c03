package site

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/mkdocs/markdown"
	sitelinks "github.com/k0rdent/kbook/internal/site/links"
)

// linkingTags are the elements whose href or src loads or links
// something (nextURLAttr finds their attribute).
var linkingTags = map[string]bool{"a": true, "img": true, "source": true, "link": true, "script": true,
	"iframe": true, "video": true, "audio": true, "track": true, "embed": true}

var shortcodeBreak = []byte(markdown.ShortcodeBreak)

// writtenSite is one version folder as Hugo wrote it, with the pages it
// was made from.
type writtenSite struct {
	dir     string // publish folder: every version, and the shared files
	version string
	// names are the folders that mean this version (its name, aliases).
	names map[string]bool
	// others are the folders of other versions (checked by CheckLinks).
	others map[string]bool
	// pages maps a page's URL below the version ("a/b/") to its source.
	pages map[string]*Page
	files map[string]*Page
	ids   map[string]map[string]bool
	// stats caches what exists found below dir: every page links every
	// other (the sidebar), so one stat per path, not per link.
	stats map[string]statResult
}

// statResult is what stat said of a path below the publish folder.
type statResult struct{ exists, dir, index bool }

// fixWritten makes every relative href and src of the written pages of v
// resolve where the page is written: a link that does not resolve as the
// browser reads it (relative to the page's URL) but does relative to the
// page's source file (as MkDocs and GitHub read it: an image beside
// runtime.md, from /runtime/) is rewritten to the target's path. It then
// checks every internal href and src of the written HTML against the
// written files, and returns a finding for each that does not resolve,
// at the page's source file and the line the link is on.
func fixWritten(publish string, v *Version, others []string, policy docsrepo.LinkPolicy) ([]findings.Finding, error) {
	w := &writtenSite{dir: publish, version: v.Name, names: map[string]bool{v.Name: true}, others: map[string]bool{},
		pages: map[string]*Page{}, files: map[string]*Page{}, ids: map[string]map[string]bool{}, stats: map[string]statResult{}}
	for _, a := range v.Aliases {
		w.names[a] = true
	}
	for _, o := range others {
		if !w.names[o] {
			w.others[o] = true
		}
	}
	for _, pg := range v.Project.Pages {
		w.pages[pg.URL()] = pg
		w.files[pg.File] = pg
	}
	base := filepath.Join(publish, v.Name)
	var htmls []string
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".html") {
			htmls = append(htmls, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []findings.Finding
	for _, file := range htmls {
		rel, _ := filepath.Rel(base, file)
		fs, err := w.fixPage(file, filepath.ToSlash(rel))
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	findings.Sort(out)
	return applyPolicy(out, policy), nil
}

// fixPage rewrites one written page and checks its links.
func (w *writtenSite) fixPage(file, rel string) ([]findings.Finding, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pageURL := strings.TrimSuffix(rel, "index.html") // "a/b/" for a/b/index.html
	if !strings.HasSuffix(rel, "index.html") {
		pageURL = path.Dir(rel) + "/"
	}
	if pageURL == "./" {
		pageURL = ""
	}
	src := w.pages[pageURL]
	var out []findings.Finding
	// The break Translate put in a Hugo shortcode delimiter nothing
	// closes, which the page shows as text.
	changed := bytes.Contains(data, shortcodeBreak)
	if changed {
		data = bytes.ReplaceAll(data, shortcodeBreak, nil)
	}
	var fixed []byte // nil until a link is rewritten
	last := 0
	for i := 0; ; {
		vs, ve, ok := nextURLAttr(data, i)
		if !ok {
			break
		}
		i = ve + 1
		dest := string(data[vs:ve])
		href, why := w.resolve(pageURL, src, htmlUnescape(dest))
		if why != "" {
			out = append(out, w.finding(rel, src, dest, why))
			continue
		}
		if href == "" || href == dest {
			continue
		}
		fixed = append(append(fixed, data[last:vs]...), href...)
		last = ve
	}
	if fixed != nil {
		fixed = append(fixed, data[last:]...)
		changed = true
	} else {
		fixed = data
	}
	if changed {
		if err := os.WriteFile(file, fixed, 0o644); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// nextURLAttr finds, from i on, the next href or src attribute (its
// name in any case, its value in double quotes) of an element that loads
// or links something (linkingTags), as the regular expression
// (?i)<(a|img|...)\b[^>]*?\s(href|src)="([^"]*)" would, without its cost
// on every byte of every page: it returns the value's [vs, ve). Code
// blocks never match: their < and " are escaped.
func nextURLAttr(data []byte, i int) (vs, ve int, ok bool) {
	for i < len(data) {
		k := bytes.IndexByte(data[i:], '<')
		if k < 0 {
			return 0, 0, false
		}
		i += k + 1
		j := i
		for j < len(data) && (data[j]|0x20 >= 'a' && data[j]|0x20 <= 'z') {
			j++
		}
		if j == i || j-i > 6 || !linkingTags[strings.ToLower(string(data[i:j]))] {
			continue
		}
		if j < len(data) && (data[j] == '_' || data[j] >= '0' && data[j] <= '9') {
			continue // not a word boundary: another element
		}
		for p := j; p < len(data) && data[p] != '>'; p++ {
			switch data[p] {
			case ' ', '\t', '\n', '\r', '\f':
			default:
				continue
			}
			for _, attr := range []string{`href="`, `src="`} {
				rest := data[p+1:]
				if len(rest) < len(attr) || !bytes.EqualFold(rest[:len(attr)], []byte(attr)) {
					continue
				}
				start := p + 1 + len(attr)
				if end := bytes.IndexByte(data[start:], '"'); end >= 0 {
					return start, start + end, true
				}
			}
		}
	}
	return 0, 0, false
}

// idsOf are the values of the page's id attributes, as the regular
// expression \sid="([^"]+)" finds them, without its cost on every byte.
func idsOf(data []byte) []string {
	var ids []string
	for i := 0; ; {
		k := bytes.Index(data[i:], []byte(`id="`))
		if k < 0 {
			return ids
		}
		at := i + k
		i = at + len(`id="`)
		if at == 0 {
			continue
		}
		switch data[at-1] {
		case ' ', '\t', '\n', '\r', '\f':
		default:
			continue
		}
		end := bytes.IndexByte(data[i:], '"')
		if end < 0 {
			return ids
		}
		if end > 0 {
			ids = append(ids, string(data[i:i+end]))
			i += end + 1
		}
	}
}

// resolve returns the href dest should be written as ("" to keep it) or
// why it does not resolve.
func (w *writtenSite) resolve(pageURL string, src *Page, dest string) (string, string) {
	if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "//") {
		return "", ""
	}
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return "", "" // external, mailto:, data:, or not a URL
	}
	suffix := ""
	if u.RawQuery != "" {
		suffix += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		suffix += "#" + u.Fragment
	}
	// Where the browser goes, as a path below the publish folder: Hugo
	// writes every URL of the theme and the pages relative to the page
	// (relativeURLs); an absolute path left in a page's own HTML is the
	// server's root, the site's where it is published at one.
	abs := strings.HasPrefix(u.Path, "/")
	rest := strings.TrimPrefix(u.Path, "/")
	if !abs {
		rest = cleanRel(path.Join(w.version, pageURL, u.Path), u.Path)
	}
	first, inner, _ := strings.Cut(rest, "/")
	if !strings.HasPrefix(rest, "../") {
		switch {
		case w.names[first] && strings.HasPrefix(inner, "pagefind/"):
			return "", "" // the search index, written after this
		case w.names[first]:
			if why := w.check(inner, u.Fragment, dest); why == "" || abs {
				return "", why
			}
		case w.others[first], rest == "versions.json", first == "pagefind":
			return "", "" // another version (CheckLinks), or written after this
		case w.exists(filepath.FromSlash(rest), false):
			return "", ""
		case abs:
			return "", fmt.Sprintf("%q: nothing is written at %s", dest, u.Path)
		}
	}
	// As the source means it: relative to the Markdown file.
	if src != nil {
		dir := path.Dir(src.Path)
		if dir == "." {
			dir = ""
		}
		target := cleanRel(path.Join(dir, u.Path), u.Path)
		if sitelinks.IsMarkdownPath(u.Path) {
			if pg := w.files[path.Clean(path.Join(path.Dir(src.File), u.Path))]; pg != nil {
				target = pg.URL()
			}
		}
		if !strings.HasPrefix(target, "../") && w.check(target, u.Fragment, dest) == "" {
			return toRoot(pageURL) + w.version + "/" + target + suffix, ""
		}
	}
	if w.names[first] {
		return "", w.check(inner, u.Fragment, dest)
	}
	return "", fmt.Sprintf("%q: nothing is written at /%s", dest, strings.TrimPrefix(rest, "../"))
}

// toRoot is the relative path from a page of the version (its URL below
// the version, "a/b/") up to the publish folder ("../../../"), as Hugo's
// relativeURLs writes it.
func toRoot(pageURL string) string {
	return strings.Repeat("../", 1+strings.Count(pageURL, "/"))
}

// cleanRel cleans a joined path below the version, keeping the trailing
// slash of a folder link; "" is the version's home.
func cleanRel(joined, orig string) string {
	c := path.Clean("/" + joined)
	c = strings.TrimPrefix(c, "/")
	if strings.HasPrefix(path.Clean(joined), "..") {
		return "../" + c
	}
	if c != "" && strings.HasSuffix(orig, "/") {
		c += "/"
	}
	return c
}

// check says why inner (a path below the version) with the fragment does
// not resolve in the written version ("" if it does).
func (w *writtenSite) check(inner, frag, dest string) string {
	if inner == "verification.json" {
		return "" // Render writes it next
	}
	rel := filepath.Join(w.version, filepath.FromSlash(inner))
	if !w.exists(rel, true) {
		return fmt.Sprintf("%q: nothing is written at /%s", dest, path.Join(w.version, inner))
	}
	if frag == "" {
		return ""
	}
	html := filepath.Join(w.dir, rel)
	if w.stat(rel).dir {
		html = filepath.Join(html, "index.html")
	}
	if !strings.HasSuffix(html, ".html") {
		return ""
	}
	ids := w.ids[html]
	if ids == nil {
		ids = map[string]bool{}
		data, _ := os.ReadFile(html)
		for _, id := range idsOf(data) {
			ids[id] = true
		}
		w.ids[html] = ids
	}
	if !ids[frag] {
		return fmt.Sprintf("%q: /%s has no anchor #%s", dest, path.Join(w.version, inner), frag)
	}
	return ""
}

// exists reports whether rel (below the publish folder) is a written file,
// or a folder with an index.html.
func (w *writtenSite) exists(rel string, folderIndex bool) bool {
	st := w.stat(rel)
	return st.exists && (!st.dir || st.index || !folderIndex)
}

// stat says whether rel (below the publish folder) exists, is a folder,
// and, a folder, holds an index.html; once per path.
func (w *writtenSite) stat(rel string) statResult {
	if st, ok := w.stats[rel]; ok {
		return st
	}
	var st statResult
	if fi, err := os.Stat(filepath.Join(w.dir, rel)); err == nil {
		st.exists, st.dir = true, fi.IsDir()
		if st.dir {
			_, err := os.Stat(filepath.Join(w.dir, rel, "index.html"))
			st.index = err == nil
		}
	}
	w.stats[rel] = st
	return st
}

// finding places a link of a written page at its source line: the first
// line of the page's Markdown that holds the link as written.
func (w *writtenSite) finding(rel string, src *Page, dest, why string) findings.Finding {
	rule := sitelinks.RuleBrokenLink
	if strings.Contains(why, "no anchor") {
		rule = sitelinks.RuleBrokenAnchor
	}
	f := findings.Finding{Rule: rule, Severity: findings.Error, File: path.Join(w.version, rel), Message: "written link " + why}
	if src == nil {
		f.Message += " (a page kbook or the theme generates)"
		return f
	}
	f.File, f.Line = src.File, 1
	if i := bytes.Index(src.Source, []byte(dest)); i >= 0 {
		f.Line = bytes.Count(src.Source[:i], []byte("\n")) + 1
	}
	return f
}

// notReported leaves out of written the links of the written pages that
// the check of the Markdown (CheckLinks: the same page, the same link)
// reported already: a link of the source that does not resolve does not
// resolve once written either, and is one problem, said once.
func notReported(written, source []findings.Finding) []findings.Finding {
	seen := map[string]bool{}
	for _, f := range source {
		seen[f.File+"\x00"+linkDest(f.Message)] = true
	}
	out := written[:0]
	for _, f := range written {
		if d := linkDest(f.Message); d == "" || !seen[f.File+"\x00"+d] {
			out = append(out, f)
		}
	}
	return out
}

// linkDest is the link a link finding's message quotes (`link "a.md":
// ...`, `written link "a.md": ...`), "" if none.
func linkDest(msg string) string {
	_, rest, ok := strings.Cut(msg, "link ")
	if !ok {
		return ""
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return ""
	}
	d, _ := strconv.Unquote(q)
	return d
}

var htmlEntities = strings.NewReplacer("&amp;", "&", "&#43;", "+", "&#34;", `"`, "&#39;", "'")

func htmlUnescape(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	return htmlEntities.Replace(s)
}

// applyPolicy sets each link finding's severity from the policy (dropping
// ignored ones): "" and "error" error, "warn" warning (an error when
// Strict), "info" info.
func applyPolicy(fs []findings.Finding, p docsrepo.LinkPolicy) []findings.Finding {
	out := fs[:0]
	for _, f := range fs {
		level := p.NotFound
		if f.Rule == sitelinks.RuleBrokenAnchor {
			level = p.Anchors
		}
		switch level {
		case "", "error":
			f.Severity = findings.Error
		case "warn", "warning":
			f.Severity = findings.Warning
			if p.Strict {
				f.Severity = findings.Error
			}
		case "info":
			f.Severity = findings.Info
		case "ignore":
			continue
		}
		out = append(out, f)
	}
	return out
}
