package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/frontmatter"
	"github.com/k0rdent/kbook/internal/inputfile"
	"github.com/k0rdent/kbook/internal/mkdocs"
	"github.com/k0rdent/kbook/internal/mkdocs/markdown"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/site/links"
)

// MkDocsSite is what kbook keeps of an MkDocs project: its
// configuration, the files it serves as they are, its nav as the sidebar
// shows it, and what the translation of its pages left for a hand.
type MkDocsSite struct {
	Config *mkdocs.Project
	// Assets are the docs_dir files that are not pages (images,
	// downloads), docs-relative, served at the same path.
	Assets []string
	// ThemeFiles are theme.custom_dir's static files (mkdocs.Files),
	// custom_dir-relative, served at that path as MkDocs serves them.
	ThemeFiles []string
	// Nav is mkdocs.yml's nav with every page's URL and title; nil
	// without a nav (the sidebar then lists the pages as kbook does).
	Nav []NavEntry
	// Unknown counts MkDocs syntax left as text, by kind, over all pages.
	Unknown map[string]int
	// Warnings are the problems that did not stop the load, each with
	// its file:line: mkdocs.yml, skipped files, translation.
	Warnings []string
	// Sections are the top folders with pages but no index page, by their
	// docs-relative path, named as MkDocs names them.
	Sections map[string]Section
	// Look is the project's logo, favicon, palette, extra stylesheets and
	// scripts, and social links.
	Look Look
	// Mermaid says a page has a mermaid diagram: the build then serves
	// its own copy of mermaid (markdown.MermaidJS).
	Mermaid bool
	// seen holds the translation warnings already reported, so that one
	// said of every page (the macros' Python modules) is said once.
	seen map[string]bool
}

// NavEntry is one entry of the sidebar of an MkDocs project.
type NavEntry struct {
	Title string `json:"title"`
	// URL is the page's path below the version root, or an external link.
	URL      string     `json:"url,omitempty"`
	External bool       `json:"external,omitempty"`
	Children []NavEntry `json:"children,omitempty"`
}

// hugoContent are the file types Hugo reads as pages besides Markdown.
var hugoContent = map[string]bool{".html": true, ".htm": true, ".adoc": true, ".asciidoc": true, ".ad": true, ".org": true, ".pandoc": true, ".pdc": true, ".rst": true}

// loadMkDocs reads a folder with mkdocs.yml as a docs repository.
func loadMkDocs(dir string, lo loadOptions) (*Project, error) {
	mk, cfg, files, err := docsrepo.OpenMkDocs(dir)
	if err != nil {
		return nil, err
	}
	ms := &MkDocsSite{Config: mk, Unknown: map[string]int{}}
	for _, a := range files.Assets {
		if hugoContent[strings.ToLower(path.Ext(a))] {
			// Hugo would take it for a page; MkDocs copies it as it is.
			ms.Warnings = append(ms.Warnings, fmt.Sprintf("%s: not served: kbook's Hugo build reads %s files as pages (exclude it, or move it out of docs_dir)", path.Join(mk.DocsDir, a), path.Ext(a)))
			continue
		}
		ms.Assets = append(ms.Assets, a)
	}
	for _, a := range files.ThemeFiles {
		if !hugoContent[strings.ToLower(path.Ext(a))] {
			ms.ThemeFiles = append(ms.ThemeFiles, a)
		}
	}
	for _, w := range mk.Warnings {
		ms.Warnings = append(ms.Warnings, w.String())
	}
	for _, w := range files.Warnings {
		ms.Warnings = append(ms.Warnings, w.String())
	}
	auto := mk.Nav == nil
	if auto {
		// MkDocs's own nav of a project without one: the sidebar,
		// prev/next and the sections' names follow it as they follow
		// a written nav
		mk.Nav = mkdocs.AutoNav(files.Pages)
	}
	p := &Project{Dir: dir, Config: cfg, MkDocs: ms}
	absDir, _ := filepath.Abs(dir)
	opts := markdown.Options{
		ProjectDir: absDir,
		DocsDir:    filepath.Join(absDir, filepath.FromSlash(mk.DocsDir)),
		Extensions: mk.Extensions,
		Plugins:    mk.Plugins,
		Variables:  variables(mk.Extra, cfg.Variables),
		Icons:      icons(lo.tools),
	}
	if _, on := mk.Plugins["macros"]; on {
		opts.Config = mk.Raw
		if _, set := opts.Variables["git"]; !set {
			opts.Variables["git"] = macrosGit(absDir)
		}
	}
	labels, weights := navIndex(mk)
	aliases := map[string][]string{}
	for from, to := range mk.Redirects {
		if mkdocs.IsExternal(to) {
			ms.Warnings = append(ms.Warnings, fmt.Sprintf("%s:%d: redirects: %s → %s: a redirect to another site is not made by kbook (skipped)", mk.File, mk.Line("plugins"), from, to))
			continue
		}
		to = path.Clean(strings.TrimPrefix(to, "/"))
		aliases[to] = append(aliases[to], "/"+links.PageURL(sectionPath(from)))
	}
	byURL := map[string]string{}
	for _, rel := range files.Pages {
		pg, err := mkdocsPage(p, opts, rel, labels[rel], weights[rel], lo.pageErrors)
		if err != nil {
			return nil, err
		}
		if a := aliases[rel]; len(a) > 0 {
			sort.Strings(a)
			pg.Front["aliases"] = a
		}
		u := pg.URL()
		if prev, dup := byURL[u]; dup {
			return nil, findings.Inputf(pg.File, 0, "page /%s is also made by %s: rename one of them", u, prev)
		}
		byURL[u] = pg.File
		p.Pages = append(p.Pages, pg)
		if pg.Runbook != nil {
			p.Runbooks = append(p.Runbooks, pg.Runbook)
		}
	}
	sort.Slice(p.Pages, func(i, j int) bool { return p.Pages[i].Path < p.Pages[j].Path })
	if mk.Nav != nil {
		titles := map[string]string{}
		for _, pg := range p.Pages {
			rel := strings.TrimPrefix(pg.File, mk.DocsDir+"/")
			titles[rel], _ = pg.Front["title"].(string)
		}
		for from, to := range files.Shadowed {
			titles[from] = "\x00" + to // served by the page that wins its URL
		}
		ms.Nav = navEntries(mk.Nav, titles)
		mkdocsPrevNext(p, ms.Nav)
	}
	mkdocsSections(p, weights, auto)
	mkdocsLook(ms, opts.Icons)
	return p, nil
}

// variables are the macros' variables: mkdocs.yml's extra, then kbook.yaml's.
func variables(extra, more map[string]any) map[string]any {
	out := make(map[string]any, len(extra)+len(more))
	maps.Copy(out, extra)
	maps.Copy(out, more)
	return out
}

// sectionPath is a docs-relative page's path below the content root: a
// folder's index.md or README.md is its section page, _index.md.
func sectionPath(rel string) string {
	dir, base := path.Split(rel)
	if l := strings.ToLower(base); l == "index.md" || l == "readme.md" {
		return dir + "_index.md"
	}
	return rel
}

// mkdocsPage reads, translates and titles one page of docs_dir. With
// keep, a page that does not translate is kept as written, its error in
// p.PageErrors.
func mkdocsPage(p *Project, opts markdown.Options, rel, label string, weight int, keep bool) (*Page, error) {
	mk := p.MkDocs.Config
	file := path.Join(mk.DocsDir, rel)
	src, err := inputfile.ReadFile(filepath.Join(p.Dir, filepath.FromSlash(file)))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	src, front, warnings := docsrepo.MkDocsFrontMatter(file, src)
	p.MkDocs.Warnings = append(p.MkDocs.Warnings, warnings...)
	opts.File = file
	opts.Path = filepath.Join(opts.ProjectDir, filepath.FromSlash(file))
	if opts.Config != nil {
		// The macros' page variable, as MkDocs has it before the page is
		// rendered: its file, URL, front matter and title.
		u := links.PageURL(sectionPath(rel))
		pageTitle, _ := front["title"].(string)
		if pageTitle == "" {
			fb := frontmatter.Split(src)
			if h, ok := mkdocs.FirstH1(src[fb.End:], fb.Lines+1); ok {
				pageTitle = h.Text
			}
		}
		if pageTitle == "" {
			pageTitle = mkdocs.FileTitle(rel)
		}
		opts.Page = map[string]any{"title": pageTitle, "meta": front, "url": u,
			"file": map[string]any{"src_path": rel, "src_uri": rel, "url": u}, "is_homepage": u == ""}
	}
	res, err := markdown.Translate(src, opts)
	if err != nil && !keep {
		return nil, docsrepo.MkDocsError(err)
	}
	if err != nil {
		p.PageErrors = append(p.PageErrors, docsrepo.MkDocsError(err))
		res = &markdown.Result{Markdown: src}
	}
	for kind, n := range res.Unknown {
		p.MkDocs.Unknown[kind] += n
	}
	if p.MkDocs.seen == nil {
		p.MkDocs.seen = map[string]bool{}
	}
	for _, w := range res.Warnings {
		if !p.MkDocs.seen[w.Msg] {
			p.MkDocs.seen[w.Msg] = true
			p.MkDocs.Warnings = append(p.MkDocs.Warnings, w.String())
		}
	}
	p.MkDocs.Mermaid = p.MkDocs.Mermaid || res.Mermaid
	body := dropForeignAssets(p.MkDocs, file, res.Markdown, res.Lines)
	fb := frontmatter.Split(body)
	rest, n := body[fb.End:], fb.Lines
	// MkDocs's title: the nav label, else the front matter's, else the
	// first # heading, else the file name. The theme shows the title as
	// the page's <h1>, so a heading that opens the page becomes it.
	title, _ := front["title"].(string)
	if h, ok := mkdocs.FirstH1(rest, n+1); ok && h.Text != "" {
		if h.Leading {
			body = blankLines(body, h.Line, h.EndLine)
			title = h.Text
		} else if title == "" {
			title = h.Text
		}
	}
	if title == "" {
		title = label
	}
	if title == "" {
		title = mkdocs.FileTitle(rel)
	}
	front["title"] = title
	if label != "" && label != title {
		front["linkTitle"] = label
	}
	if weight > 0 {
		if _, set := front["weight"]; !set {
			front["weight"] = weight
		}
	}
	pg := &Page{File: file, Path: sectionPath(rel), Source: src, Body: body, Lines: res.Lines, Front: front}
	rb, shellWhy, err := docsrepo.MkDocsRunbook(p.Dir, p.Config, file, src)
	if err != nil {
		return nil, err
	}
	if rb != nil {
		pg.Runbook = rb
		shown, err := runbook.Parse(filepath.Join(p.Dir, filepath.FromSlash(file)), body)
		if err == nil && shellWhy != "" {
			err = shown.RunShellBlocks(shellWhy)
		}
		if err == nil && len(shown.Steps) == len(rb.Steps) {
			shown.Path = file
			pg.Render = shown
		}
	}
	return pg, nil
}

// foreignAsset is a script or stylesheet a page loads from another host.
var foreignAsset = regexp.MustCompile(`(?i)<script\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?//[^"'\s>]+[^>]*>\s*</script>|<link\b[^>]*\brel\s*=\s*["']?stylesheet[^>]*\bhref\s*=\s*["']?(?:https?:)?//[^>]*>|<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?//[^>]*\brel\s*=\s*["']?stylesheet[^>]*>`)

// dropForeignAssets removes the scripts and stylesheets a page's raw HTML
// loads from another host (kbook's site loads nothing from elsewhere),
// each named in a warning at its source line.
func dropForeignAssets(ms *MkDocsSite, file string, body []byte, lines []int) []byte {
	if !foreignAsset.Match(body) {
		return body
	}
	out := bytes.SplitAfter(body, []byte("\n"))
	for i, l := range out {
		for _, m := range foreignAsset.FindAll(l, -1) {
			line := i + 1
			if i < len(lines) {
				line = lines[i]
			}
			ms.Warnings = append(ms.Warnings, fmt.Sprintf("%s:%d: %s: not loaded (the site loads no script or stylesheet from another host)", file, line, m))
		}
		out[i] = foreignAsset.ReplaceAll(l, nil)
	}
	return bytes.Join(out, nil)
}

// blankLines empties lines from..to (1-based) of src, keeping the count.
func blankLines(src []byte, from, to int) []byte {
	lines := bytes.SplitAfter(src, []byte("\n"))
	for i := from - 1; i < to && i < len(lines); i++ {
		if bytes.HasSuffix(lines[i], []byte("\n")) {
			lines[i] = []byte("\n")
		} else {
			lines[i] = nil
		}
	}
	return bytes.Join(lines, nil)
}

// navIndex gives each page in the nav its label and its place (weight).
func navIndex(mk *mkdocs.Project) (labels map[string]string, weights map[string]int) {
	labels, weights = map[string]string{}, map[string]int{}
	for i, it := range mk.NavPages() {
		labels[it.Page] = it.Title
		weights[it.Page] = i + 1
	}
	return labels, weights
}

func navEntries(items []*mkdocs.NavItem, titles map[string]string) []NavEntry {
	out := []NavEntry{}
	for _, it := range items {
		switch {
		case it.IsSection():
			out = append(out, NavEntry{Title: it.Title, Children: navEntries(it.Children, titles)})
		case it.URL != "":
			out = append(out, NavEntry{Title: or(it.Title, it.URL), URL: it.URL, External: mkdocs.IsExternal(it.URL)})
		default:
			t, built := titles[it.Page]
			if !built {
				continue // reported as a nav problem by mkdocs.Files
			}
			page := it.Page
			if to, ok := strings.CutPrefix(t, "\x00"); ok {
				page, t = to, titles[to]
			}
			out = append(out, NavEntry{Title: or(it.Title, t), URL: links.PageURL(sectionPath(page))})
		}
	}
	return out
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// translatedPage is an MkDocs page as Hugo reads it: its front matter
// (the page's own and kbook's titles and weights, and what the theme
// shows of it under kbook) as JSON, then the
// translated body on the lines it has in the translation; offset is
// generated line minus translated line.
func translatedPage(pg *Page) ([]byte, int) {
	front := pg.Front
	if len(pg.Theme) > 0 {
		front = make(map[string]any, len(pg.Front)+1)
		maps.Copy(front, pg.Front)
		front["kbook"] = pg.Theme
	}
	head, err := json.Marshal(front)
	if err != nil {
		head, _ = json.Marshal(map[string]any{"title": pg.Front["title"]})
	}
	fb := frontmatter.Split(pg.Body)
	body, n := pg.Body[fb.End:], fb.Lines
	var b bytes.Buffer
	b.Write(head)
	b.WriteByte('\n')
	offset := 1
	if n > 1 {
		b.WriteString(strings.Repeat("\n", n-1))
		offset = 0
	}
	b.Write(body)
	return b.Bytes(), offset
}

// CopyAssets puts an MkDocs project's images and files, and its
// custom_dir's static files, beside its pages in the generated content
// (a hard link where the file system allows), so that they are served
// at the path MkDocs serves them at.
func CopyAssets(p *Project, content string) error {
	ms := p.MkDocs
	for _, set := range []struct {
		dir   string
		files []string
	}{{ms.Config.DocsDir, ms.Assets}, {ms.Config.CustomDir, ms.ThemeFiles}} {
		from := filepath.Join(p.Dir, filepath.FromSlash(set.dir))
		for _, rel := range set.files {
			src := filepath.Join(from, filepath.FromSlash(rel))
			dst := filepath.Join(content, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.Link(src, dst); err == nil {
				continue
			}
			data, err := os.ReadFile(src)
			if err != nil {
				return fmt.Errorf("copy %s: %w", path.Join(set.dir, rel), err)
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// Notes are what the load of an MkDocs project has to say, once each:
// its warnings, then each kind of syntax left as text with its count.
func (ms *MkDocsSite) Notes() []string {
	out := append([]string(nil), ms.Warnings...)
	kinds := make([]string, 0, len(ms.Unknown))
	for k := range ms.Unknown {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		out = append(out, fmt.Sprintf("MkDocs syntax kbook does not translate, left as text: %s (%d times)", k, ms.Unknown[k]))
	}
	return out
}
