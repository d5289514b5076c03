package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
}

type sourceRef struct {
	file   string
	offset int
}

// hugoConfig is the generated hugo.json.
func hugoConfig(dir string, vs []*Version, base *Config, params map[string]any) map[string]any {
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
		if d := filepath.Join(p.Dir, p.Config.Content); isDir(d) {
			abs, _ := filepath.Abs(d)
			mounts = append(mounts, map[string]any{"source": abs, "target": "content", "sites": matrix(v.Name)})
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
		"baseURL":                       base.BaseURL,
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
			"highlight":       map[string]any{"noClasses": false, "codeFences": true, "guessSyntax": false},
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
func generate(dir string, vs []*Version, cfg *Config, params map[string]any) (*generated, error) {
	g := &generated{dir: dir, pages: map[string]sourceRef{}, verification: map[string][]Verification{}}
	if err := writeTheme(filepath.Join(dir, "themes", "kbook")); err != nil {
		return nil, err
	}
	pages := map[string]map[string]string{}
	sources := map[string]string{}
	for _, v := range vs {
		content := filepath.Join(dir, "gen", v.Name, "content")
		if err := os.MkdirAll(content, 0o755); err != nil {
			return nil, err
		}
		results := resultsByPath(v)
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
			sources[v.Name+"|"+pg.File] = pg.Path
			if !strings.HasPrefix(pg.File, v.Project.Config.Runbooks+"/") {
				continue // authored content is mounted as it is
			}
			out := filepath.Join(content, filepath.FromSlash(pg.Path))
			var data []byte
			offset := 0
			if pg.Runbook == nil {
				data = pg.Source
			} else {
				ver, res := Verify(pg.Runbook, results[pg.Runbook.Path])
				ver.URL = pg.URL()
				if v.Running[pg.Runbook.Path] && ver.Status == Unverified {
					ver.Reason += "; kbook serve is running it now"
				}
				rows = append(rows, ver)
				var err error
				data, offset, err = runbookPage(pg, ver, res)
				if err != nil {
					return nil, err
				}
			}
			if err := writeFile(out, data); err != nil {
				return nil, err
			}
			g.pages[out] = sourceRef{file: pg.File, offset: offset}
		}
		if len(v.Project.Runbooks) > 0 && !hasRunbookIndex && !hasPage(v.Project, "runbooks/_index.md") {
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
	data, _ := json.Marshal(map[string]any{"pages": pages, "sources": sources})
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

// resultsByPath indexes a version's results by docs-relative runbook path.
func resultsByPath(v *Version) map[string]*report.Runbook {
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
func runbookPage(pg *Page, ver Verification, res *report.Runbook) ([]byte, int, error) {
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
	fm["kbook"] = map[string]any{
		"runbook":      true,
		"source":       pg.File,
		"verification": ver,
		"steps":        buildSteps(rb, res),
		"requires":     rb.Meta.Requires,
		"files":        fileNames(rb),
	}
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
	fmLines := frontMatterLines(rb.Source)
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

// frontMatterLines counts the lines of a leading --- front matter block.
func frontMatterLines(src []byte) int {
	lines := strings.SplitAfter(string(src), "\n")
	if strings.TrimRight(lines[0], "\r\n") != "---" {
		return 0
	}
	for i := 1; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r\n \t")
		if l == "---" || l == "..." {
			return i + 1
		}
	}
	return 0
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
