package runbook

import (
	"strings"
)

// Macros renders the macros ({{ var }}, or the project's delimiters) of
// the page at file line by line, as markdown.MacroLines does: one string
// per line of src; nil when the page has none to render. It is asked only
// of pages that run their shell blocks.
type Macros func(file string, src []byte) ([]string, error)

// ExpandMacros puts lines, the page's source lines with their macros
// rendered (Macros), in the place of its blocks' content, line for line,
// so that a block runs, and its output is compared with, what a reader of
// the built page sees, while every line number stays the source's. Each
// block records the lines that changed (Block.Macros). A page that runs
// its shell blocks has them classified again.
func (r *Runbook) ExpandMacros(lines []string) error {
	if r.Format != Markdown || lines == nil {
		return nil
	}
	raw := strings.Split(string(r.Source), "\n")
	changed := false
	for _, b := range r.Blocks {
		content := strings.Split(strings.TrimSuffix(b.Content, "\n"), "\n")
		if b.Content == "" {
			continue
		}
		var out []string
		for k, c := range content {
			num := b.Line + 1 + k
			if num-1 >= len(lines) || num-1 >= len(raw) {
				out = append(out, c)
				continue
			}
			src := strings.TrimSuffix(raw[num-1], "\r")
			got := lines[num-1]
			if got == src || !strings.HasSuffix(src, c) {
				out = append(out, c)
				continue
			}
			// What stands before the content in the source (a list's
			// indentation, a blockquote's "> ") is left out of it.
			prefix := src[:len(src)-len(c)]
			if !strings.HasPrefix(got, prefix) {
				out = append(out, c)
				continue
			}
			out = append(out, got[len(prefix):])
			b.Macros = append(b.Macros, num)
		}
		if len(b.Macros) > 0 {
			b.Content = strings.Join(out, "\n") + "\n"
			changed = true
		}
	}
	if !changed || r.shellWhy == "" {
		return nil
	}
	r.Steps, r.Files = nil, nil
	return classify(r)
}
