package markdown

import (
	"fmt"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/frontmatter"
)

// Options say what a page is and what its project enabled.
type Options struct {
	// File is the page's path as reported in errors ("docs/a/b.md").
	File string
	// ProjectDir is the absolute folder holding mkdocs.yml.
	ProjectDir string
	// DocsDir is the absolute docs_dir.
	DocsDir string
	// Extensions are mkdocs.yml's markdown_extensions by name
	// ("admonition", "pymdownx.snippets"), each with its options (nil
	// when it has none).
	Extensions map[string]map[string]any
	// Plugins are mkdocs.yml's plugins by name ("macros",
	// "include-markdown"), each with its options.
	Plugins map[string]map[string]any
	// Variables are the macros' variables: mkdocs.yml's extra, then
	// kbook.yaml's additions.
	Variables map[string]any
	// Config is mkdocs.yml's content, the macros' config variable (nil:
	// none).
	Config map[string]any
	// Page is the macros' page variable: title, url, file (src_path,
	// src_uri) and meta, the front matter, whose keys are variables too.
	Page map[string]any
	// Path is the page's absolute path on disk, which include-markdown
	// resolves relative paths against. Empty: DocsDir joined with File
	// when File is relative to it, else File.
	Path string
	// Icons resolves the emoji extension's icon shortcodes
	// (":material-check:") to inline SVG; NPMIcons reads them from the
	// npm packages `make site-tools` installs. Nil: icon shortcodes stay
	// as text, with one warning per page naming the first.
	Icons IconSource
}

// Result is a translated page.
type Result struct {
	// Markdown is the translated page body (front matter kept as it was).
	Markdown []byte
	// Lines maps each output line (index 0 = line 1) to its source line
	// in the page, so that a later error is reported where the author
	// wrote it.
	Lines []int
	// Unknown counts syntax that was recognised as MkDocs-only but not
	// translated, by kind ("pymdownx.keys"), left as text.
	Unknown map[string]int
	// Warnings are problems that do not stop the build.
	Warnings []Warning
	// Mermaid is set when the page has mermaid diagrams: the site must
	// then serve mermaid.min.js at js/mermaid.min.js below its root
	// (MermaidJS finds it), which the theme's mkdocs.js loads on such
	// pages only.
	Mermaid bool
}

// Warning is a non-fatal problem at a source line.
type Warning struct {
	File string
	Line int
	Msg  string
}

func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg) }

// line is one line of a page being translated, with the source line of
// the page it comes from (an included file's lines carry the including
// line).
type line struct {
	s   string
	src int
}

// translator holds one page's translation state.
type translator struct {
	opts   Options
	res    *Result
	warned map[string]bool
	tabSet int
	// nUnknown counts every unknown() call.
	nUnknown int
	// abbrs are the page's abbreviations (*[HTML]: ...), applied to text.
	abbrs []abbr
}

// Translate turns one page of an MkDocs project into kbook Markdown.
func Translate(src []byte, opts Options) (*Result, error) {
	t := &translator{opts: opts, res: &Result{Unknown: map[string]int{}}, warned: map[string]bool{}}
	all := splitLines(string(src))
	n := frontmatter.Split(src).Lines
	front, body := all[:n:n], all[n:]
	body, err := t.includes(body, t.pagePath(), 0)
	if err != nil {
		return nil, err
	}
	if renderMacros(front) {
		body, err = t.macros(body)
	}
	if err != nil {
		return nil, err
	}
	body = t.collectAbbrs(body)
	var out []line
	if out, err = t.blocks(body); err != nil {
		return nil, err
	}
	out = append(front, out...)
	var b strings.Builder
	t.res.Lines = make([]int, 0, len(out))
	bodyAt := -1
	for i, l := range out {
		if i == len(front) {
			bodyAt = b.Len()
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.s)
		t.res.Lines = append(t.res.Lines, l.src)
	}
	if len(out) == 0 {
		t.res.Lines = append(t.res.Lines, 1)
	}
	md := b.String()
	if bodyAt < 0 {
		bodyAt = len(md)
	}
	// Hugo reads shortcodes in the body, not in the front matter.
	t.res.Markdown = []byte(md[:bodyAt] + escapeShortcodes(md[bodyAt:]))
	return t.res, nil
}

// splitLines splits src at '\n'; a final newline gives a last empty line,
// so that joining with '\n' gives src back.
func splitLines(src string) []line {
	parts := strings.Split(src, "\n")
	ls := make([]line, len(parts))
	for i, p := range parts {
		ls[i] = line{s: strings.TrimSuffix(p, "\r"), src: i + 1}
	}
	return ls
}

// errorf is bad input at a source line of the page (an undefined macro
// variable, a snippet that does not exist), as a located
// *findings.InputError: kbook exits 2 with it.
func (t *translator) errorf(src int, format string, a ...any) error {
	return findings.Inputf(t.opts.File, src, format, a...)
}

// warnOnce records a warning once per page per key.
func (t *translator) warnOnce(key string, src int, format string, a ...any) {
	if t.warned[key] {
		return
	}
	t.warned[key] = true
	t.res.Warnings = append(t.res.Warnings, Warning{File: t.opts.File, Line: src, Msg: fmt.Sprintf(format, a...)})
}

// ext reports whether a markdown extension is enabled, and its options.
// Python-Markdown's own extensions may be named "markdown.extensions.x".
func (t *translator) ext(name string) (map[string]any, bool) {
	for _, n := range []string{name, "markdown.extensions." + name, "pymdownx." + name} {
		if o, ok := t.opts.Extensions[n]; ok {
			return o, true
		}
	}
	return nil, false
}

// plugin reports whether an MkDocs plugin is enabled, and its options.
func (t *translator) plugin(name string) (map[string]any, bool) {
	o, ok := t.opts.Plugins[name]
	return o, ok
}

// unknown counts syntax left as text.
func (t *translator) unknown(kind string) { t.res.Unknown[kind]++; t.nUnknown++ }

// renderMacros is false when the page's front matter says
// render_macros: false (the macros plugin then leaves it as it is).
func renderMacros(front []line) bool {
	for _, l := range front {
		k, v, ok := strings.Cut(l.s, ":")
		if ok && strings.TrimSpace(k) == "render_macros" && strings.EqualFold(strings.TrimSpace(v), "false") {
			return false
		}
	}
	return true
}
