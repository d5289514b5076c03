package runbook

import (
	"bytes"
	"regexp"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/k0rdent/kbook/internal/textpos"
)

// Rewrite returns the runbook source with the content of the named files
// replaced, every other byte unchanged. Markdown blocks keep their
// indentation prefix and line endings; content without a final newline
// gets the noeol flag in its info string (and content with one loses it),
// so the next run reads back exactly what was written. txtar files are
// reformatted.
func (r *Runbook) Rewrite(contents map[string]string) ([]byte, error) {
	if r.Format == Txtar {
		return r.rewriteTxtar(contents)
	}
	type edit struct {
		b    *Block
		text string
	}
	var edits []edit
	for _, f := range r.Files {
		c, ok := contents[f.Name]
		if !ok || c == f.Content {
			continue
		}
		edits = append(edits, edit{f.Block, c})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].b.ContentStart < edits[j].b.ContentStart })
	var out bytes.Buffer
	last := 0
	for _, e := range edits {
		open := r.lineStart(e.b.Line)
		out.Write(r.Source[last:open])
		fenceLine := string(r.Source[open:e.b.ContentStart])
		noEOL := e.text != "" && !strings.HasSuffix(e.text, "\n")
		switch {
		case noEOL && !e.b.Has(NoEOL):
			body := strings.TrimRight(fenceLine, "\r\n")
			fenceLine = strings.TrimRight(body, " \t") + " " + NoEOL + fenceLine[len(body):]
		case !noEOL && e.b.Has(NoEOL):
			fenceLine = noEOLWord.ReplaceAllString(fenceLine, "")
		}
		out.WriteString(fenceLine)
		fence := fenceRun(bytes.TrimLeft(r.Source[open:], " \t>"))
		nl := "\n"
		if e.b.CRLF {
			nl = "\r\n"
		}
		text := e.text
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		for i, l := range strings.SplitAfter(text, "\n") {
			if l == "" {
				continue
			}
			l = strings.TrimSuffix(l, "\n")
			if isClosingFence([]byte(l), fence) {
				return nil, errorf(r.Path, e.b.Line, "cannot update: new content line %d (%q) would close the %s fence; use a longer fence", i+1, l, fence)
			}
			out.WriteString(e.b.Prefix)
			out.WriteString(l)
			out.WriteString(nl)
		}
		last = e.b.ContentEnd
	}
	out.Write(r.Source[last:])
	return out.Bytes(), nil
}

// noEOLWord finds the noeol flag in a fence line.
var noEOLWord = regexp.MustCompile(`[ \t]+` + NoEOL + `\b`)

func (r *Runbook) lineStart(n int) int {
	return textpos.NewLines(r.Source).Start(n)
}

func (r *Runbook) rewriteTxtar(contents map[string]string) ([]byte, error) {
	ar := txtar.Parse(r.Source)
	for i := range ar.Files {
		if c, ok := contents[ar.Files[i].Name]; ok {
			ar.Files[i].Data = []byte(c)
		}
	}
	return txtar.Format(ar), nil
}
