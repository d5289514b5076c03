package runbook

import (
	"bytes"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// parseTxtar reads a plain testscript file: its comment section is one step
// and its file sections are files, each at its own line.
func parseTxtar(file string, src []byte) (*Runbook, error) {
	rb := &Runbook{Path: file, Format: Txtar, Source: src}
	ar := txtar.Parse(src)
	st := &Step{Index: 1, Name: baseName(file), Line: 1}
	for i, l := range strings.SplitAfter(string(ar.Comment), "\n") {
		if l == "" {
			continue
		}
		st.Script = append(st.Script, Line{Text: strings.TrimRight(l, "\r\n"), Num: i + 1})
	}
	rb.Steps = []*Step{st}
	// txtar.Parse does not keep positions: find each marker line in order.
	lines := bytes.SplitAfter(src, []byte("\n"))
	next := 0
	for _, f := range ar.Files {
		for ; next < len(lines); next++ {
			if a := txtar.Parse(lines[next]); len(a.Files) == 1 && a.Files[0].Name == f.Name {
				break
			}
		}
		next++
		if err := checkFileName(f.Name); err != nil {
			return nil, errorf(file, next, "file %q: %v", f.Name, err)
		}
		rb.Files = append(rb.Files, &File{Name: f.Name, Content: string(f.Data), Line: next})
	}
	return rb, nil
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	return trimExt(p)
}
