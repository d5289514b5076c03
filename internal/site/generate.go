package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/frontmatter"
	"github.com/k0rdent/kbook/internal/mkdocs/markdown"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	kbooksite "github.com/k0rdent/kbook/site"
)

// Version is one version of the docs to build: a project (the working
// tree, or a git worktree of a tag) and the results of its runbooks.
type Version struct {
	// Name is the version folder ("v0.2", "next").
	Name string
	// Title is the switcher label (default: the name).
	Title string
	// Aliases are folders that redirect to it ("latest").
	Aliases []string
	// Project is the loaded docs repository of this version.
	Project *Project
	// Results are the recorded runbook results (nil: none).
	Results *report.Report
	// Lastmod maps docs-relative file paths to their last commit time
	// (RFC 3339); nil outside git.
	Lastmod map[string]string
	// Running are the runbooks (docs-relative paths) being run for a
	// newer result (kbook serve --run): their pages say so.
	Running map[string]bool
}

// generated is a Hugo project written into a build directory.
type generated struct {
	dir string
	// pages maps a generated file (absolute) to its source (docs-relative)
	// and the line offset between them, to report Hugo errors at the source.
	pages map[string]sourceRef
	// verification holds each version's rows, for verification.json.
	verification map[string][]Verification
	// roots are the absolute docs roots (with a trailing separator) whose
	// files Hugo reads through mounts.
	roots []string
	// byURL maps a page's path as Hugo names it ("a/b", "" for the home;
	// lower case, no slashes around) to its docs-relative source.
	byURL map[string]string
	// sources counts the pages of every version, generated ones included.
	sources int
}

type sourceRef struct {
	file   string
	offset int
	// lines maps the lines of the translated page (generated line minus
	// offset) to the source's, for an MkDocs page; nil: the same.
	lines []int
}

// line is the source line of a generated file's line.
func (r sourceRef) line(n int) int {
	n = max(n-r.offset, 1)
	if len(r.lines) > 0 {
		return r.lines[min(n, len(r.lines))-1]
	}
	return n
}

// hugoConfig is the generated hugo.json.
func hugoConfig(dir string, vs []*Version, base *docsrepo.Config, params map[string]any) map[string]any {
	versions := map[string]any{}
	for i, v := range vs {
		versions[v.Name] = map[string]any{"weight": i + 1}
	}
	var mounts []map[string]any
	matrix := func(v string) map[string]any {
		return map[string]any{"matrix": map[string]any{"versions": []string{v}}}
	}
	for _, v := range vs {
		p := v.Project
		// An MkDocs project's pages are translated and its assets copied
		// into the generated content: docs_dir is not mounted.
		if d := filepath.Join(p.Dir, p.Config.Content); p.MkDocs == nil && isDir(d) {
			abs, _ := filepath.Abs(d)
			m := map[string]any{"source": abs, "target": "content", "sites": matrix(v.Name)}
			// Its pages that run their shell blocks are written into
			// the generated content, as runbook pages.
			var exclude []string
			for _, f := range p.ContentRunbooks() {
				exclude = append(exclude, "! "+strings.TrimPrefix(f, p.Config.Content+"/"))
			}
			if len(exclude) > 0 {
				m["files"] = exclude
			}
			mounts = append(mounts, m)
		}
		mounts = append(mounts, map[string]any{"source": filepath.Join(dir, "gen", v.Name, "content"), "target": "content", "sites": matrix(v.Name)})
	}
	// Layout overrides come from the project being built first (the
	// newest); Hugo's lookup order puts them before the theme's.
	p := vs[0].Project
	for _, c := range []string{"layouts", "assets", "static", "i18n", "archetypes"} {
		if d := filepath.Join(p.Dir, p.Config.Site, c); isDir(d) {
			abs, _ := filepath.Abs(d)
			mounts = append(mounts, map[string]any{"source": abs, "target": c})
		}
	}
	mounts = append(mounts, map[string]any{"source": filepath.Join(dir, "gen", "data"), "target": "data"})
	return map[string]any{
		// Hugo writes every internal URL from "/" and, with relativeURLs,
		// rewrites it relative to the page: the same output then works at
		// a server's root, under any subpath and from file://. The deploy
		// URL (kbook.yaml's baseURL, --base-url) is only where an address
		// must be absolute: the canonical link, the sitemaps and the 404
		// page (params.kbook.baseURL, basePath). Hugo's own relativeURLs
		// with a baseURL that has a path would climb out of it
		// ("../../docs/next/").
		"baseURL":                       "/",
		"relativeURLs":                  true,
		"title":                         base.Title,
		"theme":                         "kbook",
		"themesDir":                     filepath.Join(dir, "themes"),
		"defaultContentVersion":         vs[0].Name,
		"defaultContentVersionInSubdir": true,
		"disableDefaultSiteRedirect":    true,
		"versions":                      versions,
		"disableKinds":                  []string{"taxonomy", "term", "rss"},
		"enableRobotsTXT":               false,
		"markup": map[string]any{
			"goldmark":        markdown.Goldmark(),
			"highlight":       map[string]any{"noClasses": false, "codeFences": true, "guessSyntax": false, "style": highlightStyle},
			"tableOfContents": map[string]any{"startLevel": 2, "endLevel": 3},
		},
		"params":  map[string]any{"kbook": params},
		"module":  map[string]any{"mounts": mounts},
		"sitemap": map[string]any{"changeFreq": "", "priority": -1},
		"outputs": map[string]any{"home": []string{"html"}, "section": []string{"html"}, "page": []string{"html"}},
		"build":   map[string]any{"noJSConfigInAssets": true},
		"caches":  map[string]any{"getresource": map[string]any{"maxAge": 0}},
	}
}

// generate writes the Hugo project for the versions into dir.
func generate(dir string, vs []*Version, cfg *docsrepo.Config, params map[string]any) (*generated, error) {
	g := &generated{dir: dir, pages: map[string]sourceRef{}, verification: map[string][]Verification{}, byURL: map[string]string{}}
	if err := writeTheme(filepath.Join(dir, "themes", "kbook")); err != nil {
		return nil, err
	}
	pages := map[string]map[string]string{}
	sources := map[string]string{}
	navs := map[string][]NavEntry{}
	looks := map[string]Look{}
	for _, v := range vs {
		content := filepath.Join(dir, "gen", v.Name, "content")
		if err := os.MkdirAll(content, 0o755); err != nil {
			return nil, err
		}
		g.sources += len(v.Project.Pages) + 3 // home, verification, runbooks
		results := ResultsByPath(v)
		var rows []Verification
		hasRunbookIndex := false
		for _, pg := range v.Project.Pages {
			if pg.Path == "runbooks/_index.md" {
				hasRunbookIndex = true
			}
			info := map[string]string{"source": pg.File}
			if t := v.Lastmod[pg.File]; t != "" {
				info["lastmod"] = t
			}
			pages[v.Name+"|"+pg.Path] = info
			if _, dup := g.byURL[strings.Trim(pg.URL(), "/")]; !dup {
				g.byURL[strings.Trim(pg.URL(), "/")] = pg.File
			}
			sources[v.Name+"|"+pg.File] = pg.Path
			if pg.Body == nil && pg.Runbook == nil && !strings.HasPrefix(pg.File, v.Project.Config.Runbooks+"/") {
				continue // authored content is mounted as it is
			}
			out := filepath.Join(content, filepath.FromSlash(pg.Path))
			var data []byte
			offset := 0
			switch {
			case pg.Runbook == nil && pg.Body != nil:
				data, offset = translatedPage(pg)
			case pg.Runbook == nil:
				data = pg.Source
			default:
				ver, res := Verify(pg.Runbook, results[pg.Runbook.Path])
				ver.URL = pg.URL()
				if v.Running[pg.Runbook.Path] && ver.Status == Unverified {
					ver.Reason += "; kbook serve is running it now"
				}
				rows = append(rows, ver)
				shown := pg
				if pg.Render != nil {
					c := *pg
					c.Runbook = pg.Render
					shown = &c
				}
				var err error
				data, offset, err = runbookPage(shown, ver, res, v.Project.Dir)
				if err != nil {
					return nil, err
				}
			}
			if err := writeFile(out, data); err != nil {
				return nil, err
			}
			ref := sourceRef{file: pg.File, offset: offset}
			if pg.Body != nil {
				ref.lines = pg.Lines
			}
			g.pages[out] = ref
		}
		if v.Project.MkDocs != nil {
			if err := CopyAssets(v.Project, content); err != nil {
				return nil, err
			}
			if v.Project.MkDocs.Nav != nil {
				navs[v.Name] = v.Project.MkDocs.Nav
			}
			looks[v.Name] = v.Project.MkDocs.Look
			// A folder with pages but no index page is a section all the
			// same: named as MkDocs names it, placed by its first page.
			for folder, sec := range v.Project.MkDocs.Sections {
				fm := map[string]any{"title": sec.Label, "kbook": map[string]any{"section": sec.Label}}
				if sec.Weight > 0 {
					fm["weight"] = sec.Weight
				}
				head, _ := json.Marshal(fm)
				if err := writeFile(filepath.Join(content, filepath.FromSlash(folder), "_index.md"), append(head, '\n')); err != nil {
					return nil, err
				}
			}
		}
		if len(v.Project.Runbooks) > 0 && v.Project.MkDocs == nil && !hasRunbookIndex && !hasPage(v.Project, "runbooks/_index.md") {
			fm, _ := json.Marshal(map[string]any{"title": "Runbooks", "weight": 50, "description": "Executable runbooks: every command on these pages was run by kbook."})
			if err := writeFile(filepath.Join(content, "runbooks", "_index.md"), append(fm, '\n')); err != nil {
				return nil, err
			}
		}
		g.verification[v.Name] = rows
		fm, _ := json.Marshal(map[string]any{
			"title":       "Verification",
			"description": "Every runbook of this version: whether it was verified, when, and against what.",
			"layout":      "verification",
			"weight":      1000,
			"kbook":       map[string]any{"runbooks": rows, "summary": summarize(rows)},
			"sitemap":     map[string]any{"disable": false},
		})
		if err := writeFile(filepath.Join(content, "verification.md"), append(fm, '\n')); err != nil {
			return nil, err
		}
		if !hasPage(v.Project, "_index.md") {
			fm, _ := json.Marshal(map[string]any{"title": v.Project.Config.Title, "description": v.Project.Config.Description})
			if err := writeFile(filepath.Join(content, "_index.md"), append(fm, '\n')); err != nil {
				return nil, err
			}
		}
	}
	data, _ := json.Marshal(map[string]any{"pages": pages, "sources": sources, "nav": navs, "look": looks})
	if err := writeFile(filepath.Join(dir, "gen", "data", "kbook.json"), data); err != nil {
		return nil, err
	}
	hc, _ := json.MarshalIndent(hugoConfig(dir, vs, cfg, params), "", "  ")
	if err := writeFile(filepath.Join(dir, "hugo.json"), hc); err != nil {
		return nil, err
	}
	return g, nil
}

func hasPage(p *Project, path string) bool {
	for _, pg := range p.Pages {
		if pg.Path == path {
			return true
		}
	}
	return false
}

// Summary counts a version's runbooks by status.
type Summary struct {
	Total      int `json:"total"`
	Verified   int `json:"verified"`
	Partial    int `json:"partial"`
	Failed     int `json:"failed"`
	Unverified int `json:"unverified"`
}

func summarize(rows []Verification) Summary {
	s := Summary{Total: len(rows)}
	for _, r := range rows {
		switch r.Status {
		case Verified:
			s.Verified++
		case Partial:
			s.Partial++
		case Failed:
			s.Failed++
		default:
			s.Unverified++
		}
	}
	return s
}

// ResultsByPath indexes a version's results by docs-relative runbook path.
func ResultsByPath(v *Version) map[string]*report.Runbook {
	out := map[string]*report.Runbook{}
	if v.Results == nil {
		return out
	}
	root, _ := filepath.Abs(v.Project.Dir)
	for _, rb := range v.Results.Runbooks {
		p := rb.Path
		if !filepath.IsAbs(p) {
			p, _ = filepath.Abs(p)
		}
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			out[filepath.ToSlash(rel)] = rb
		}
	}
	return out
}

// runbookPage renders a runbook as a Hugo page: JSON front matter with the
// verification and the steps, and the Markdown body with step blocks
// replaced by the kbook-step shortcode and file blocks labelled with their
// name. Body lines keep their source line numbers plus the returned offset.
// dir is the docs root: files named on the page are shown relative to it.
func runbookPage(pg *Page, ver Verification, res *report.Runbook, dir string) ([]byte, int, error) {
	rb := pg.Runbook
	fm := map[string]any{"title": rb.Title()}
	if rb.Meta.Description != "" {
		fm["description"] = rb.Meta.Description
	}
	if rb.Meta.Weight != 0 {
		fm["weight"] = rb.Meta.Weight
	}
	if len(rb.Meta.Tags) > 0 {
		fm["keywords"] = rb.Meta.Tags
	}
	// What kbook adds to an MkDocs project's runbook: its weight from the
	// nav, and its title as MkDocs shows it (the leading # heading, else
	// the front matter's, else the nav label), which the page's <h1> is.
	for k, v := range pg.Front {
		if _, set := fm[k]; !set || k == "title" {
			fm[k] = v
		}
	}
	kb := map[string]any{
		"runbook":      true,
		"source":       pg.File,
		"verification": ver,
		"steps":        buildSteps(rb, res, dir),
		"requires":     rb.Meta.Requires,
		"files":        fileNames(rb),
	}
	// an MkDocs page's own: its section's name, its previous and next page
	for k, v := range pg.Theme {
		if _, set := kb[k]; !set {
			kb[k] = v
		}
	}
	fm["kbook"] = kb
	head, err := json.Marshal(fm)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: encode page: %w", pg.File, err)
	}
	if rb.Format == runbook.Txtar {
		var b bytes.Buffer
		b.Write(head)
		b.WriteString("\n\n{{< kbook-step 1 >}}\n")
		for _, f := range rb.Files {
			fmt.Fprintf(&b, "\n```%s {file=%q}\n%s```\n", langOf(f.Name), f.Name, f.Content)
		}
		return b.Bytes(), 0, nil
	}
	lines := strings.SplitAfter(string(rb.Source), "\n")
	fmLines := frontmatter.Split(rb.Source).Lines
	steps := map[*runbook.Block]int{}
	for _, st := range rb.Steps {
		steps[st.Block] = st.Index
	}
	files := map[*runbook.Block]string{}
	for _, f := range rb.Files {
		files[f.Block] = f.Name
	}
	for _, b := range rb.Blocks {
		open := b.Line - 1
		if open >= len(lines) {
			continue
		}
		indent := leadingIndent(lines[open])
		if n, ok := steps[b]; ok {
			lines[open] = fmt.Sprintf("%s{{< kbook-step %d >}}\n", indent, n)
			for i := open + 1; i < b.EndLine && i < len(lines); i++ {
				lines[i] = "\n"
			}
			continue
		}
		if name, ok := files[b]; ok {
			fence := strings.TrimLeft(lines[open], " \t>")
			run := fenceRun([]byte(fence))
			lang := b.Lang
			if lang == "" {
				lang = "text"
			}
			lines[open] = fmt.Sprintf("%s%s%s {file=%q}\n", lines[open][:len(lines[open])-len(fence)], run, lang, name)
		}
	}
	var out bytes.Buffer
	out.Write(head)
	out.WriteByte('\n')
	offset := 1 - fmLines
	if fmLines > 1 {
		out.WriteString(strings.Repeat("\n", fmLines-1))
		offset = 0
	}
	for _, l := range lines[fmLines:] {
		out.WriteString(l)
	}
	return out.Bytes(), offset, nil
}

func fileNames(rb *runbook.Runbook) []string {
	var n []string
	for _, f := range rb.Files {
		n = append(n, f.Name)
	}
	return n
}

func langOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return "yaml"
	case ".json":
		return "json"
	case ".sh":
		return "sh"
	}
	return "text"
}

func leadingIndent(l string) string {
	return l[:len(l)-len(strings.TrimLeft(l, " \t>"))]
}

func fenceRun(s []byte) string {
	if len(s) == 0 {
		return "```"
	}
	i := 0
	for i < len(s) && s[i] == s[0] {
		i++
	}
	return string(s[:i])
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func writeFile(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o644)
}

// writeTheme extracts the embedded theme.
func writeTheme(dst string) error {
	return fs.WalkDir(kbooksite.Theme, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(kbooksite.Theme, path)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(dst, filepath.FromSlash(path)), data)
	})
}
