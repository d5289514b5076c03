package runbook

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/k0rdent/kbook/internal/frontmatter"
	"github.com/k0rdent/kbook/internal/outmatch"
	"github.com/k0rdent/kbook/internal/textpos"
)

// StepLang is the fence language of executable steps.
const StepLang = "testscript"

var md = goldmark.New()

// parseMarkdown parses a Markdown runbook.
func parseMarkdown(file string, src []byte) (*Runbook, error) {
	rb := &Runbook{Path: file, Format: Markdown, Source: src}
	fm, err := splitFrontMatter(file, src)
	if err != nil {
		return nil, err
	}
	if rb.Meta, err = parseMeta(file, fm); err != nil {
		return nil, err
	}
	// Blank the front matter (keeping newlines) so that goldmark's offsets
	// and line numbers are those of the original file.
	body := frontmatter.Blank(src)
	idx := textpos.NewLines(src)
	doc := md.Parser().Parse(text.NewReader(body))

	var heading string
	err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			heading = nodeText(n, src)
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock:
			b, err := newBlock(file, src, idx, n)
			if err != nil {
				return ast.WalkStop, err
			}
			b.Heading = heading
			rb.Blocks = append(rb.Blocks, b)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return nil, err
	}
	if rb.Meta.Run == RunShell {
		rb.shellWhy = "front matter run: shell"
	}
	if err := optInBlocks(rb); err != nil {
		return nil, err
	}
	if err := classify(rb); err != nil {
		return nil, err
	}
	return rb, nil
}

// newBlock records one fenced block with its source positions.
func newBlock(file string, src []byte, idx textpos.Lines, n *ast.FencedCodeBlock) (*Block, error) {
	pos := n.Pos()
	if pos < 0 {
		return nil, errorf(file, 0, "internal error: fenced block without position")
	}
	open := idx.Line(pos)
	fence := fenceRun(src[pos:])
	b := &Block{Line: open, Attrs: map[string]string{}}
	if n.Info != nil {
		info := string(n.Info.Segment.Value(src))
		lang, attrs, flags, err := parseInfo(info)
		if err != nil {
			return nil, errorf(file, open, "fence info %q: %v", info, err)
		}
		b.Lang, b.Attrs, b.Flags = lang, attrs, flags
	}
	b.ContentStart = idx.Start(open + 1)
	if open+1 > len(idx) { // fence on the last line, nothing after it
		b.ContentStart = len(src)
	}
	b.CRLF = b.ContentStart >= 2 && src[b.ContentStart-2] == '\r'
	lines := n.Lines()
	last := open
	var content strings.Builder
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		if i == 0 {
			b.Prefix = string(src[idx.Start(idx.Line(seg.Start)):seg.Start])
		}
		v := seg.Value(src)
		v = bytes.TrimSuffix(v, []byte("\n"))
		v = bytes.TrimSuffix(v, []byte("\r"))
		content.Write(v)
		content.WriteByte('\n')
		last = idx.Line(seg.Start)
	}
	if lines.Len() == 0 {
		b.Prefix = string(src[idx.Start(open):pos])
	}
	b.Content = content.String()
	b.EndLine = last + 1
	if b.EndLine > len(idx) || !isClosingFence(src[idx.Start(b.EndLine):], fence) {
		return nil, errorf(file, open, "code fence %s is never closed (add a closing %s line at the same indentation)", fence, fence)
	}
	b.ContentEnd = idx.Start(b.EndLine)
	return b, nil
}

// fenceRun returns the run of ` or ~ that opens a fence at the start of s.
func fenceRun(s []byte) string {
	if len(s) == 0 {
		return "```"
	}
	c := s[0]
	i := 0
	for i < len(s) && s[i] == c {
		i++
	}
	return string(s[:i])
}

// isClosingFence reports whether the line at the start of s closes a fence
// opened with open: the same character, at least as many, nothing after.
func isClosingFence(s []byte, open string) bool {
	line, _, _ := bytes.Cut(s, []byte("\n"))
	l := strings.TrimLeft(string(line), " \t>")
	l = strings.TrimRight(l, " \t\r")
	if len(l) < len(open) {
		return false
	}
	return strings.Trim(l, open[:1]) == ""
}

// classify sorts blocks into steps and files; on a page that runs its
// shell blocks, those are steps too, and the output block after one is
// its expected output.
func classify(rb *Runbook) error {
	seenFile := map[string]int{}
	titled := map[string]bool{} // files only title= attributes bound
	boundBy := map[*Block]string{}
	seenStep := map[string]int{}
	uniqueName := func(st *Step) {
		seenStep[st.Name]++
		if n := seenStep[st.Name]; n > 1 {
			st.Name = fmt.Sprintf("%s (%d)", st.Name, n)
		}
	}
	for i := 0; i < len(rb.Blocks); i++ {
		b := rb.Blocks[i]
		name, isFile := b.Attrs["file"]
		if rb.shellWhy != "" && shellBlock(b) && (!rb.blocksOptIn || b.Has(RunFlag)) {
			var next *Block
			if i+1 < len(rb.Blocks) {
				next = rb.Blocks[i+1]
			}
			sh, consumed, err := newShell(rb.Path, b, next)
			if err != nil {
				return err
			}
			if b.Attrs[OutputAttr] == "" && (sh.Expected == nil || sh.Expected.Block.Attrs[OutputAttr] == "") && rb.Meta.Output != "" {
				sh.Mode, _ = outmatch.ParseMode(rb.Meta.Output) // checked with the front matter
			}
			if consumed {
				i++
			}
			st := &Step{Index: len(rb.Steps) + 1, Line: b.Line, Block: b, Shell: sh, Name: b.Attrs["name"]}
			if st.Name == "" {
				st.Name = b.Heading
			}
			if st.Name == "" {
				st.Name = shellStepName(sh)
			}
			if st.Name == "" {
				st.Name = fmt.Sprintf("step %d", st.Index)
			}
			uniqueName(st)
			rb.Steps = append(rb.Steps, st)
			continue
		}
		if title := b.Attrs["title"]; !isFile && rb.shellWhy != "" && b.Lang != StepLang && !runsAsShell(b) && fileTitle(title) && (seenFile[title] == 0 || titled[title]) {
			// MkDocs-material's title="x.yaml": on a page whose shell
			// blocks run, the file the block shows. A later block of
			// the same title shows it edited: the runner writes each
			// at its place in the page.
			name, isFile = title, true
			boundBy[b] = "its title= attribute"
			if seenFile[title] != 0 {
				rb.Files = append(rb.Files, &File{Name: name, Content: b.Content, Line: b.Line, Block: b, By: boundBy[b]})
				continue
			}
			titled[title] = true
		}
		switch {
		case b.Lang == StepLang && isFile:
			return errorf(rb.Path, b.Line, "a %s block cannot also have file=%s: use another language for files", StepLang, name)
		case b.Lang == StepLang:
			st := &Step{Index: len(rb.Steps) + 1, Line: b.Line, Block: b}
			st.Name = b.Attrs["name"]
			if st.Name == "" {
				st.Name = b.Heading
			}
			if st.Name == "" {
				st.Name = fmt.Sprintf("step %d", st.Index)
			}
			uniqueName(st)
			for i, l := range strings.SplitAfter(b.Content, "\n") {
				if l == "" {
					continue
				}
				st.Script = append(st.Script, Line{Text: strings.TrimSuffix(l, "\n"), Num: b.Line + 1 + i})
				if isMarker(l) {
					return errorf(rb.Path, b.Line+1+i, "txtar file marker %q inside a %s block: write files as separate blocks with file=NAME", strings.TrimSpace(l), StepLang)
				}
			}
			rb.Steps = append(rb.Steps, st)
		case isFile:
			if err := checkFileName(name); err != nil {
				return errorf(rb.Path, b.Line, "file=%q: %v", name, err)
			}
			if prev, dup := seenFile[name]; dup {
				return errorf(rb.Path, b.Line, "file=%s is already defined at line %d", name, prev)
			}
			seenFile[name] = b.Line
			content := b.Content
			if b.Has(NoEOL) {
				content = strings.TrimSuffix(content, "\n")
			}
			rb.Files = append(rb.Files, &File{Name: name, Content: content, Line: b.Line, Block: b, By: boundBy[b]})
		}
	}
	if rb.shellWhy != "" {
		inferFiles(rb, seenFile)
	}
	return nil
}

// fileTitle reports whether a block's title names a file kbook can write
// (x.yaml, manifests/app.json): one word with an extension, a clean path
// inside $WORK; a caption ("Example output") is no file.
func fileTitle(title string) bool {
	return title != "" && !strings.ContainsAny(title, " \t") && path.Ext(title) != "" && checkFileName(title) == nil
}

// dataLangs are the languages of blocks whose file the prose may name.
var dataLangs = map[string]bool{"yaml": true, "yml": true, "json": true}

// proseFile is a file name the prose before a block may give it.
var proseFile = regexp.MustCompile(`[A-Za-z0-9_][A-Za-z0-9_./-]*\.(?:ya?ml|json)\b`)

// fileFlag is a file given to a command with -f, --filename or --values
// (kubectl apply -f x.yaml, helm install --values x.yaml).
var fileFlag = regexp.MustCompile(`(?:^|[\s;|&(])(?:-f|--filename|--values)(?:=|\s+)["']?([^\s"';|&)]+)`)

// inferFiles binds a YAML or JSON block that names no file to the file
// the prose before it names (back to the block before it), when a later
// shell block of the page gives that file to a command with -f: "create
// a file called `cred.yaml`", then kubectl apply -f cred.yaml. Of several
// names, the last the prose mentions; a file already bound keeps its
// first block.
func inferFiles(rb *Runbook, seen map[string]int) {
	lines := strings.Split(string(rb.Source), "\n")
	bound := map[*Block]bool{}
	for _, f := range rb.Files {
		bound[f.Block] = true
	}
	prevEnd := 0
	for _, b := range rb.Blocks {
		from := prevEnd
		prevEnd = b.EndLine
		if bound[b] || !dataLangs[strings.ToLower(b.Lang)] || b.Lang == StepLang || b.Has(NoRun) {
			continue
		}
		var names []string
		var at []int
		for n := from + 1; n < b.Line && n <= len(lines); n++ {
			for _, m := range proseFile.FindAllString(lines[n-1], -1) {
				names, at = append(names, strings.TrimPrefix(m, "./")), append(at, n)
			}
		}
		for i := len(names) - 1; i >= 0; i-- {
			name := path.Clean(names[i])
			if _, dup := seen[name]; dup || checkFileName(name) != nil {
				continue
			}
			use := appliedAt(rb, b.Line, name)
			if use == 0 {
				continue
			}
			seen[name] = b.Line
			rb.Files = append(rb.Files, &File{Name: name, Content: b.Content, Line: b.Line, Block: b,
				By: fmt.Sprintf("inferred: named in the prose at line %d, given to -f at line %d", at[i], use)})
			break
		}
	}
	sort.SliceStable(rb.Files, func(i, j int) bool { return rb.Files[i].Line < rb.Files[j].Line })
}

// appliedAt is the line of the first command after line that gives name
// to -f, --filename or --values; 0 when none does.
func appliedAt(rb *Runbook, after int, name string) int {
	for _, st := range rb.Steps {
		if st.Shell == nil || st.Line < after {
			continue
		}
		for _, l := range st.Shell.Script {
			for _, m := range fileFlag.FindAllStringSubmatch(l.Text, -1) {
				if path.Clean(strings.TrimPrefix(m[1], "./")) == name {
					return l.Num
				}
			}
		}
	}
	return 0
}

func checkFileName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty file name")
	case strings.Contains(name, `\`):
		return fmt.Errorf("use / as the path separator")
	case path.IsAbs(name):
		return fmt.Errorf("must be relative to $WORK")
	case path.Clean(name) != name || name == "." || strings.HasPrefix(name, "../"):
		return fmt.Errorf("must be a clean path inside $WORK")
	}
	return nil
}

// isMarker reports whether l is a txtar file marker line.
func isMarker(l string) bool {
	a := txtar.Parse([]byte(l))
	return len(a.Files) > 0
}

// nodeText concatenates the text segments below n.
func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
		}
		if s, ok := c.(*ast.String); ok && entering {
			b.Write(s.Value)
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}
