// Package markdown translates the Markdown dialect of MkDocs-material
// projects (Python-Markdown, pymdown-extensions and the plugins the
// k0rdent ecosystem uses) into Markdown that kbook's Hugo build renders:
// CommonMark with raw HTML wrappers styled by the embedded theme.
//
// Translate is a pure function of a page's source and Options: it reads
// other files only for snippets and include-markdown, below the roots the
// options name, and reports what it did not know as counts per kind.
package markdown

import "fmt"

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
}

// Warning is a non-fatal problem at a source line.
type Warning struct {
	File string
	Line int
	Msg  string
}

func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg) }

// Error is bad input at a source line (an undefined macro variable, a
// snippet that does not exist): kbook exits 2 with it.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Translate turns one page of an MkDocs project into kbook Markdown.
//
// TODO(issue 15): the translation itself; until it lands the page is
// returned unchanged.
func Translate(src []byte, opts Options) (*Result, error) {
	lines := make([]int, 0, 64)
	n := 1
	for _, c := range src {
		if c == '\n' {
			lines = append(lines, n)
			n++
		}
	}
	lines = append(lines, n)
	return &Result{Markdown: src, Lines: lines, Unknown: map[string]int{}}, nil
}
