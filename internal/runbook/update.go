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
	return r.Update(contents, nil)
}

// Update is Rewrite that also replaces the expected output of shell
// steps (kbook run --update of an exact-mode block) with outputs[step]:
// the lines of the console or text block after the shell block, or a
// console block's own output lines after its last command. The output
// is written without trailing spaces and without blank lines at either
// end (an exact comparison ignores both), in the block's indentation
// and line endings; every other byte is unchanged. A step whose expected
// output is not one run of lines after its commands (a console block
// that mixes them) is a located error, as is a line that would close
// the fence.
func (r *Runbook) Update(files map[string]string, outputs map[*Step]string) ([]byte, error) {
	if r.Format == Txtar {
		return r.rewriteTxtar(files)
	}
	var edits []edit
	for _, f := range r.Files {
		c, ok := files[f.Name]
		if !ok || c == f.Content {
			continue
		}
		edits = append(edits, r.fileEdit(f.Block, c))
	}
	for st, out := range outputs {
		e, err := r.outputEdit(st, out)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e)
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var out bytes.Buffer
	last := 0
	for _, e := range edits {
		out.Write(r.Source[last:e.start])
		out.WriteString(e.head)
		fence := fenceRun(bytes.TrimLeft(r.Source[r.lineStart(e.b.Line):], " \t>"))
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
		last = e.end
	}
	out.Write(r.Source[last:])
	return out.Bytes(), nil
}

// edit replaces Source[start:end] with head and then text's lines, each
// in b's indentation and line endings.
type edit struct {
	b          *Block
	start, end int
	head, text string
}

// fileEdit rewrites a file block: its fence line (the noeol flag) and
// its content.
func (r *Runbook) fileEdit(b *Block, text string) edit {
	open := r.lineStart(b.Line)
	fenceLine := string(r.Source[open:b.ContentStart])
	noEOL := text != "" && !strings.HasSuffix(text, "\n")
	switch {
	case noEOL && !b.Has(NoEOL):
		body := strings.TrimRight(fenceLine, "\r\n")
		fenceLine = strings.TrimRight(body, " \t") + " " + NoEOL + fenceLine[len(body):]
	case !noEOL && b.Has(NoEOL):
		fenceLine = noEOLWord.ReplaceAllString(fenceLine, "")
	}
	return edit{b: b, start: open, end: b.ContentEnd, head: fenceLine, text: text}
}

// outputEdit rewrites a shell step's expected output with out.
func (r *Runbook) outputEdit(st *Step, out string) (edit, error) {
	if st.Shell == nil || st.Shell.Expected == nil || st.Shell.Expected.Block == nil {
		line := 0
		if st != nil {
			line = st.Line
		}
		return edit{}, errorf(r.Path, line, "cannot update: the block shows no expected output")
	}
	exp := st.Shell.Expected
	b := exp.Block
	if len(b.Macros) > 0 {
		return edit{}, errorf(r.Path, b.Macros[0], "cannot update: the expected output uses macros, whose values kbook would write in their place; update it by hand")
	}
	text := outputText(out)
	if isTranscript(b) {
		for i, l := range strings.Split(text, "\n") {
			if _, ok := prompt(l); ok {
				return edit{}, errorf(r.Path, exp.Line, "cannot update: output line %d (%q) would read as a command in the console block at line %d; make the block text, or update it by hand", i+1, l, b.Line)
			}
		}
	}
	if b != st.Block {
		// The console or text block after the shell block: all of it.
		return edit{b: b, start: b.ContentStart, end: b.ContentEnd, text: text}, nil
	}
	// A console block's own output: the lines after its last command.
	cmds, _, _ := splitConsole(b)
	if last := cmds[len(cmds)-1].Num; last > exp.Line {
		return edit{}, errorf(r.Path, exp.Line, "cannot update: the console block at line %d mixes commands and output (its command at line %d follows output), and kbook cannot tell which output is whose; split it, or update it by hand", b.Line, last)
	}
	return edit{b: b, start: r.lineStart(exp.Line), end: b.ContentEnd, text: text}, nil
}

// outputText is a command's output as an expected-output block holds it:
// lines without trailing spaces, no blank lines at either end.
func outputText(out string) string {
	ls := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t\r")
	}
	for len(ls) > 0 && ls[0] == "" {
		ls = ls[1:]
	}
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
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
