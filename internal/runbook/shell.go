package runbook

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/k0rdent/kbook/internal/outmatch"
)

// RunShell is the front matter's run: value that makes a page's shell
// blocks run (issue 39): run: shell.
const RunShell = "shell"

// OutputAttr is the info-string attribute that sets a block's output
// mode (output=exact), on the shell block or on its expected output.
const OutputAttr = "output"

// Shell is a shell block of a page that runs its shell blocks: a bash,
// sh or shell block, or a console block with "$ " prompts.
type Shell struct {
	// Lang is the fence language.
	Lang string
	// Script holds the commands with their source lines: a console
	// block's prompt lines without the prompt, and their continuations.
	Script []Line
	// Run is the text the page's bash session runs: Script's lines, with
	// declare and typeset given -g so that they set what a terminal would
	// (the session runs each block inside a function).
	Run string
	// Expected is the output the page shows for the block, nil if none.
	Expected *Expected
	// Mode is how the output is compared with Expected.
	Mode outmatch.Mode
	// Needs is what the commands need and leave, read from Run.
	Needs Needs
	// Skip is why the block is not run, as the page (a skip= attribute)
	// or an overlay declares it; "" when it runs.
	Skip string
	// Provided is set when kbook provides what the block does (an
	// overlay says so, or a provided= attribute): its note. The block
	// does not run, unless the overlay gave it a stand-in (Standin).
	Provided string
	// Standin is true when an overlay changed the block's commands
	// (replace, run): it runs what the overlay made of it.
	Standin bool
	// Env are NAME=VALUE variables exported in the page's session
	// before the block runs (an overlay's env).
	Env []string
	// By says where Skip, Provided, Env or a stand-in were declared
	// ("overlay.yaml:12", "its skip= attribute"); "" for none.
	By string
	// Syntax is why the commands do not parse as bash (a located
	// *findings.InputError), nil when they parse. It is no error yet: an
	// overlay may still skip the block, provide it or give it a stand-in
	// that parses; (*Runbook).ShellSyntax reports it for a block that is
	// to run. Run is empty while it is set.
	Syntax error
	// Fill are the placeholders (<clusterName>: angle-bracket names a
	// reader fills in) without which the commands parse: the block needs
	// a human, and is skipped saying so (Skip), unless an overlay
	// provides it or fills them in.
	Fill []string
}

// SkipAttr and ProvidedAttr are the info-string attributes that declare a
// block skipped (with the reason) or provided by kbook (with a note).
const (
	SkipAttr     = "skip"
	ProvidedAttr = "provided"
)

// SetScript replaces the block's commands (an overlay's stand-in): they
// are parsed again, a syntax error a located *findings.InputError. Commands
// that parse only once their placeholders are filled in (Fill) are no
// error: the block is skipped as needing a human (its Needs read from
// them filled in, for the blocks that depend on it).
func (sh *Shell) SetScript(file string, script []Line) error {
	if len(sh.Fill) > 0 && sh.Skip == fillReason(sh.Fill) {
		sh.Skip = "" // the placeholders' skip, not one declared
	}
	sh.Fill = nil
	run, f, err := shellRun(file, script)
	if err != nil {
		fill, filled := placeholders(script)
		if len(fill) == 0 {
			return err
		}
		_, f, ferr := shellRun(file, filled)
		if ferr != nil {
			// A real syntax error: the one that is left once the
			// placeholders are filled in, not theirs.
			return ferr
		}
		sh.Script, sh.Run, sh.Needs, sh.Syntax, sh.Fill = script, "", analyze(f, filled), nil, fill
		if sh.Skip == "" && sh.Provided == "" {
			sh.Skip = fillReason(fill)
		}
		return nil
	}
	if redirectPlaceholder(f, script) {
		// It parses, but only because bash reads a placeholder as
		// redirections (--from-literal=ID=<your channel id>): it
		// needs a human as much as one that does not parse.
		fill, filled := placeholders(script)
		if _, ff, ferr := shellRun(file, filled); ferr == nil {
			sh.Script, sh.Run, sh.Needs, sh.Syntax, sh.Fill = script, "", analyze(ff, filled), nil, fill
			if sh.Skip == "" && sh.Provided == "" {
				sh.Skip = fillReason(fill)
			}
			return nil
		}
	}
	sh.Script, sh.Run, sh.Needs, sh.Syntax = script, run, analyze(f, script), nil
	return nil
}

// redirectPlaceholder reports whether a block that parses holds a
// placeholder that bash reads as redirections: a placeholderWord whose
// "<" is an input redirection of the parsed block and whose ">" ends a
// word (is followed by a space, a quote, a backslash or the end of the
// line), as in --from-literal=ID=<your channel id> or a <name> alone,
// never wc -l </etc/hosts>count.
func redirectPlaceholder(f *syntax.File, script []Line) bool {
	in := map[[2]uint]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if r, ok := n.(*syntax.Redirect); ok && r.Op == syntax.RdrIn {
			in[[2]uint{r.OpPos.Line(), r.OpPos.Col()}] = true
		}
		return true
	})
	if len(in) == 0 {
		return false
	}
	for i, l := range script {
		for _, m := range placeholderWord.FindAllStringIndex(l.Text, -1) {
			if end := m[1]; end < len(l.Text) && !strings.ContainsRune(" \t\"'\\;", rune(l.Text[end])) {
				continue
			}
			if in[[2]uint{uint(i + 1), uint(m[0] + 1)}] {
				return true
			}
		}
	}
	return false
}

// placeholderWord is a doc placeholder: a name in angle brackets that a
// reader replaces (<gcpJSONCredentialsFileName>, <cluster-name>, <your
// project id>, a path such as </path/to/kubeconfig>, a note such as
// <optional, cc email addresses> or <port, defaults to "587">), never a
// redirection a block means (<<EOF, <(cmd), <&3, < file). Placeholders
// are only looked for in a block that does not parse as written, so a
// redirection written without spaces (wc -l </etc/hosts>out) that
// parses is never taken for one.
var placeholderWord = regexp.MustCompile(`<[A-Za-z/~][A-Za-z0-9_.:/~-]*,?(?: [A-Za-z0-9_.:/~"'-]+,?)*>`)

// placeholders returns the distinct placeholders of a script, in order,
// and the script with each replaced by a plain word of its own (the
// same lines, so that what is read from it keeps its line numbers).
func placeholders(script []Line) (fill []string, filled []Line) {
	index := map[string]int{}
	for _, l := range script {
		text := placeholderWord.ReplaceAllStringFunc(l.Text, func(p string) string {
			i, ok := index[p]
			if !ok {
				i = len(fill)
				index[p] = i
				fill = append(fill, p)
			}
			return fmt.Sprintf("kbook_placeholder_%d", i+1)
		})
		filled = append(filled, Line{Text: text, Num: l.Num})
	}
	return fill, filled
}

// fillReason is the skip reason of a block that needs its placeholders
// filled in.
func fillReason(fill []string) string {
	return "needs a human: fill in " + strings.Join(fill, ", ")
}

// ShellSyntax is the syntax error of the first shell block that is to
// run and does not parse as bash, a located *findings.InputError; nil
// when there is none. A block skipped or provided without a stand-in
// (by its attributes or an overlay) runs nothing, so its syntax is no
// error: call it once the overlays have applied, before anything runs.
func (r *Runbook) ShellSyntax() error {
	for _, st := range r.Steps {
		if sh := st.Shell; sh != nil && sh.Syntax != nil && sh.Skip == "" && (sh.Provided == "" || sh.Standin) {
			return sh.Syntax
		}
	}
	return nil
}

// Expected is the output a page shows for a shell block: a console
// block's lines after its prompts, or the console or text block that
// follows the shell block.
type Expected struct {
	Text string
	// Line is the source line of Text's first line.
	Line int
	// Block is the console or text block that holds it; for a console
	// block's own output, that block.
	Block *Block
}

// ShellPage reports whether the page runs its shell blocks, and why
// ("front matter run: shell", "kbook.yaml run.pages"); "" when it does not.
func (r *Runbook) ShellPage() string { return r.shellWhy }

// RunShellBlocks makes the page run its shell blocks, for the reason
// given (kbook.yaml lists it): its steps are classified again, in
// document order. A block's syntax error is kept on the block
// (Shell.Syntax, reported by ShellSyntax once the overlays have applied);
// a bad attribute is a *findings.InputError at its line.
//
// A page that only some blocks' run flags opted in runs all its shell
// blocks from then on.
func (r *Runbook) RunShellBlocks(why string) error {
	if r.Format != Markdown || (r.shellWhy != "" && !r.blocksOptIn) {
		return nil
	}
	r.shellWhy, r.blocksOptIn = why, false
	r.Steps, r.Files = nil, nil
	return classify(r)
}

// isShellLang reports whether a fence language runs in a page's bash
// session; console blocks run only with "$ " prompts.
func isShellLang(lang string) bool {
	switch strings.ToLower(lang) {
	case "bash", "sh", "shell":
		return true
	}
	return false
}

func isConsoleLang(lang string) bool {
	switch strings.ToLower(lang) {
	case "console", "shell-session", "shellsession", "terminal":
		return true
	}
	return false
}

// isOutputLang reports whether a block after a shell block is its output.
func isOutputLang(lang string) bool {
	return isConsoleLang(lang) || strings.ToLower(lang) == "text" || lang == "" || strings.ToLower(lang) == "output"
}

// prompt returns the command of a console line that starts with a "$ "
// prompt.
func prompt(l string) (string, bool) {
	t := strings.TrimLeft(l, " ")
	if t == "$" {
		return "", true
	}
	return strings.CutPrefix(t, "$ ")
}

// splitConsole splits a console block into commands (prompt lines and the
// lines that continue them after a trailing backslash, or inside an
// unfinished quote or heredoc, as "> " lines) and output.
//
// In a bash, sh or shell fence read as a transcript, a comment line
// ("# Sign with the private key") whose next line that is not blank is a
// prompt is a comment on that command, neither a command nor output.
func splitConsole(b *Block) (cmds []Line, out []string, outLine int) {
	cont := false
	lines := strings.Split(strings.TrimSuffix(b.Content, "\n"), "\n")
	for i, l := range lines {
		num := b.Line + 1 + i
		if !cont && isShellLang(b.Lang) && commentBeforePrompt(lines, i) {
			continue
		}
		if c, ok := prompt(l); ok && !cont {
			cmds = append(cmds, Line{Text: c, Num: num})
			cont = strings.HasSuffix(c, `\`)
			continue
		}
		if cont {
			cmds = append(cmds, Line{Text: strings.TrimPrefix(l, "> "), Num: num})
			cont = strings.HasSuffix(l, `\`)
			continue
		}
		if len(out) == 0 {
			outLine = num
		}
		out = append(out, l)
	}
	return cmds, out, outLine
}

// commentBeforePrompt reports whether lines[i] is a comment line whose
// next line that is not blank is a "$ " prompt.
func commentBeforePrompt(lines []string, i int) bool {
	if !strings.HasPrefix(strings.TrimSpace(lines[i]), "#") {
		return false
	}
	for _, l := range lines[i+1:] {
		if strings.TrimSpace(l) != "" {
			_, ok := prompt(l)
			return ok
		}
	}
	return false
}

// hasPrompt reports whether a console block shows a command.
func hasPrompt(b *Block) bool {
	cmds, _, _ := splitConsole(b)
	return len(cmds) > 0
}

// isTranscript reports whether a shell block is a transcript: a console
// block, or a bash, sh or shell block whose first line is a "$ " prompt,
// after comment lines on it (docs often put "$ kubectl get pods" and its
// output in a bash fence, and "# Push the chart" before a prompt),
// read as a console block is: prompt lines are commands, the rest output.
func isTranscript(b *Block) bool {
	if isConsoleLang(b.Lang) {
		return true
	}
	if !isShellLang(b.Lang) {
		return false
	}
	lines := strings.Split(b.Content, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" && !commentBeforePrompt(lines, i) {
			_, ok := prompt(l)
			return ok
		}
	}
	return false
}

// RunFlag is the info-string flag (```bash run) that makes one shell
// block run on a page that does not run its shell blocks otherwise: the
// page runs the blocks that carry it, and only those.
const RunFlag = "run"

// runFlagFence finds a fence whose info string carries RunFlag, as a bare
// word or inside MkDocs' attribute braces ({ .no-copy run }).
var runFlagFence = regexp.MustCompile("(?m)^[ \t>]*(?:```+|~~~+)[ \t]*[A-Za-z][\\w-]*[^\n]*?[ \t{]run(?:[ \t}]|$)")

// HasRunFlag reports whether a page's source may have a block with the
// run flag: what decides, before a page is parsed, that it may be a
// runbook (a block's fence is read again when it is).
func HasRunFlag(src []byte) bool {
	return bytes.Contains(src, []byte("run")) && runFlagFence.Match(src)
}

// optInBlocks makes a page that nothing else opted in run the shell
// blocks that carry the run flag. The flag on a block that cannot run is
// an error at its line.
func optInBlocks(rb *Runbook) error {
	var first *Block
	for _, b := range rb.Blocks {
		if !b.Has(RunFlag) {
			continue
		}
		switch {
		case b.Has(NoRun):
			return errorf(rb.Path, b.Line, "a block has %s and %s: drop one", RunFlag, NoRun)
		case isConsoleLang(b.Lang) && !hasPrompt(b):
			return errorf(rb.Path, b.Line, "the %s flag on a %s block with no $ prompt: it has no command to run", RunFlag, b.Lang)
		case !isShellLang(b.Lang) && !isConsoleLang(b.Lang):
			return errorf(rb.Path, b.Line, "the %s flag on a %s block: only bash, sh, shell and console blocks (with $ prompts) run", RunFlag, b.Lang)
		}
		if first == nil {
			first = b
		}
	}
	if first != nil && rb.shellWhy == "" {
		rb.shellWhy = fmt.Sprintf("the run flag of its block at line %d", first.Line)
		rb.blocksOptIn = true
	}
	return nil
}

// Unflagged counts the shell blocks a page that only the run flags of
// some blocks opted in leaves out: those without the flag (0 on any
// other page).
func (r *Runbook) Unflagged() int {
	if !r.blocksOptIn {
		return 0
	}
	n := 0
	for _, b := range r.Blocks {
		if shellBlock(b) && !b.Has(RunFlag) {
			n++
		}
	}
	return n
}

// shellBlock reports whether a block runs in the page's bash session when
// the page runs its shell blocks (one with file= is written, not run).
func shellBlock(b *Block) bool {
	_, isFile := b.Attrs["file"]
	return !isFile && runsAsShell(b)
}

// runsAsShell reports whether a block of a page that runs its shell
// blocks is one of them.
func runsAsShell(b *Block) bool {
	if b.Has(NoRun) {
		return false
	}
	return isShellLang(b.Lang) || (isConsoleLang(b.Lang) && hasPrompt(b))
}

// newShell reads a shell block; next is the block after it (nil at the
// end), its expected output when it is a console or text block without
// prompts and no heading stands between. It parses the commands as bash:
// a syntax error is kept in Syntax, for ShellSyntax to report once the
// overlays have applied and before anything starts.
func newShell(file string, b, next *Block) (*Shell, bool, error) {
	sh := &Shell{Lang: b.Lang}
	consumed := false
	if isTranscript(b) {
		cmds, out, outLine := splitConsole(b)
		sh.Script = cmds
		// Blank lines between prompts are no output the page shows.
		if strings.TrimSpace(strings.Join(out, "")) != "" {
			sh.Expected = &Expected{Text: strings.Join(out, "\n") + "\n", Line: outLine, Block: b}
		}
	} else {
		for i, l := range strings.Split(strings.TrimSuffix(b.Content, "\n"), "\n") {
			sh.Script = append(sh.Script, Line{Text: l, Num: b.Line + 1 + i})
		}
	}
	if sh.Expected == nil && next != nil && next.Heading == b.Heading && isOutputLang(next.Lang) &&
		!(isConsoleLang(next.Lang) && hasPrompt(next)) && !next.Has(NoRun) {
		if _, isFile := next.Attrs["file"]; !isFile {
			sh.Expected = &Expected{Text: next.Content, Line: next.Line + 1, Block: next}
			consumed = true
		}
	}
	mode := b.Attrs[OutputAttr]
	if sh.Expected != nil && sh.Expected.Block != b {
		if m := sh.Expected.Block.Attrs[OutputAttr]; m != "" {
			if mode != "" && m != mode {
				return nil, false, errorf(file, sh.Expected.Block.Line, "output=%s here, but the shell block at line %d says output=%s: give the mode once", m, b.Line, mode)
			}
			mode = m
		}
	}
	var err error
	if sh.Mode, err = outmatch.ParseMode(mode); err != nil {
		return nil, false, errorf(file, b.Line, "%v", err)
	}
	for _, k := range []string{SkipAttr, ProvidedAttr} {
		if v, ok := b.Attrs[k]; ok && strings.TrimSpace(v) == "" {
			return nil, false, errorf(file, b.Line, "%s= needs the reason: %s=\"needs an AWS account\"", k, k)
		}
	}
	if _, ok := b.Attrs[SkipAttr]; ok {
		if _, both := b.Attrs[ProvidedAttr]; both {
			return nil, false, errorf(file, b.Line, "a block is skipped or provided, not both: drop %s= or %s=", SkipAttr, ProvidedAttr)
		}
	}
	sh.Skip, sh.Provided = b.Attrs[SkipAttr], b.Attrs[ProvidedAttr]
	if sh.Skip != "" {
		sh.By = "its skip= attribute"
	} else if sh.Provided != "" {
		sh.By = "its provided= attribute"
	}
	if err := sh.SetScript(file, sh.Script); err != nil {
		// Not an error until the overlays have applied (ShellSyntax).
		sh.Syntax = err
	}
	return sh, consumed, nil
}

// shellRun parses a block's commands as bash and returns the text to run:
// the same lines, with -g after each declare and typeset outside a
// function body.
func shellRun(file string, script []Line) (string, *syntax.File, error) {
	var src strings.Builder
	for _, l := range script {
		src.WriteString(l.Text)
		src.WriteByte('\n')
	}
	text := src.String()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		line := 0
		msg := err.Error()
		if pe, ok := err.(syntax.ParseError); ok {
			line, msg = sourceLine(script, int(pe.Pos.Line())), pe.Text
		}
		if pe, ok := err.(syntax.LangError); ok {
			line, msg = sourceLine(script, int(pe.Pos.Line())), pe.Error()
		}
		return "", nil, errorf(file, line, "bash syntax: %s", msg)
	}
	var at []int
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			return false
		case *syntax.DeclClause:
			if v := n.Variant; v != nil && (v.Value == "declare" || v.Value == "typeset") {
				at = append(at, int(v.End().Offset()))
			}
		}
		return true
	})
	for i := len(at) - 1; i >= 0; i-- {
		text = text[:at[i]] + " -g" + text[at[i]:]
	}
	return text, f, nil
}

// sourceLine maps a 1-based line of a block's script to its source line.
func sourceLine(script []Line, n int) int {
	if n >= 1 && n <= len(script) {
		return script[n-1].Num
	}
	if len(script) > 0 {
		return script[len(script)-1].Num
	}
	return 0
}

// shellStep names a shell step after its first command.
func shellStepName(sh *Shell) string {
	for _, l := range sh.Script {
		if t := strings.TrimSpace(l.Text); t != "" && !strings.HasPrefix(t, "#") {
			if len(t) > 60 {
				t = t[:57] + "..."
			}
			return fmt.Sprintf("$ %s", t)
		}
	}
	return ""
}
