package site

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
)

// Line kinds of a terminal block.
const (
	KindCommand = "cmd"     // a command a person types: shown after "$ ", copied by the copy button
	KindCheck   = "check"   // an assertion (stdout, cmp, exists, await...), shown with its outcome
	KindComment = "comment" // a # comment of the script
	KindNote    = "note"    // a testscript construct without a shell equivalent
	KindCont    = "cont"    // a shell block's line that goes on with the command above it
)

// Outcomes of a line or step.
const (
	OutcomePassed  = "passed"
	OutcomeFailed  = "failed"
	OutcomeSkipped = "skipped" // a [condition] was not met
	OutcomeNotRun  = "notrun"  // never reached, or no result at all
)

// TermLine is one line of a step's terminal block.
type TermLine struct {
	Kind string `json:"kind"`
	// Text is what is displayed: the command as typed, or the check in words.
	Text string `json:"text"`
	// Script is the testscript line it comes from.
	Script string `json:"script"`
	Line   int    `json:"line"`
	// Cond is the [condition] guarding the line, without brackets.
	Cond string `json:"cond,omitempty"`
	// ExpectFail is true for "! exec": the command must fail.
	ExpectFail bool `json:"expectFail,omitempty"`
	// Outcome is set for commands and checks.
	Outcome string `json:"outcome,omitempty"`
	// Stdout, Stderr and Exit are what the run captured; empty without a result.
	Stdout   string `json:"stdout,omitempty"`
	Stderr   string `json:"stderr,omitempty"`
	Exit     int    `json:"exit,omitempty"`
	Duration string `json:"duration,omitempty"`
}

// Step is one step of a runbook page.
type Step struct {
	Index    int        `json:"index"`
	Name     string     `json:"name"`
	Anchor   string     `json:"anchor"`
	Line     int        `json:"line"`
	Outcome  string     `json:"outcome"`
	Reason   string     `json:"reason,omitempty"`
	Duration string     `json:"duration,omitempty"`
	Lines    []TermLine `json:"lines"`
	// Copy is what the copy button copies: the commands only.
	Copy string `json:"copy"`
	// Failure is the failure message of a failed step.
	Failure string `json:"failure,omitempty"`
	// Result is a shell block's result (report.BlockPassed, BlockRan,
	// BlockProvided, BlockSkipped, BlockFailed), the block's mark; ""
	// for a testscript step and for a block without a result.
	Result string `json:"result,omitempty"`
	// ResultLabel is the mark's text ("Provided by kbook"), and
	// ResultDetail what kbook run says of the block at its line
	// ("provided by kbook: the run's cluster (kbook.overlay.yaml:9)"):
	// shown on hover and in the block's expandable note.
	ResultLabel  string `json:"resultLabel,omitempty"`
	ResultDetail string `json:"resultDetail,omitempty"`
}

// resultLabels are the marks' words: a mark is never its colour alone.
var resultLabels = map[string]string{
	report.BlockPassed:   "Passed",
	report.BlockRan:      "Ran",
	report.BlockProvided: "Provided by kbook",
	report.BlockSkipped:  "Skipped",
	report.BlockFailed:   "Failed",
}

// StepAnchor is the HTML id of a runbook step, for links to it.
func StepAnchor(index int) string { return fmt.Sprintf("step-%d", index) }

// shellish maps testscript built-ins that have a shell equivalent to it.
var shellish = map[string]func(args []string) string{
	"cd":    func(a []string) string { return "cd " + strings.Join(a, " ") },
	"mkdir": func(a []string) string { return "mkdir -p " + strings.Join(a, " ") },
	"rm":    func(a []string) string { return "rm -rf " + strings.Join(a, " ") },
	"mv":    func(a []string) string { return "mv " + strings.Join(a, " ") },
	"chmod": func(a []string) string { return "chmod " + strings.Join(a, " ") },
	"sleep": func(a []string) string { return "sleep " + strings.Join(a, " ") },
	"wait":  func(a []string) string { return "wait" },
	"symlink": func(a []string) string {
		if len(a) == 3 && a[1] == "->" {
			return "ln -s " + a[2] + " " + a[0]
		}
		return "ln -s " + strings.Join(a, " ")
	},
}

// checkWords describes assertion commands; neg is the "!" form.
var checkWords = map[string]func(neg bool, a []string) string{
	"stdout": func(neg bool, a []string) string { return matchWords("output", neg, a) },
	"stderr": func(neg bool, a []string) string { return matchWords("error output", neg, a) },
	"grep": func(neg bool, a []string) string {
		if len(a) >= 2 {
			return matchWords(a[len(a)-1], neg, a[:len(a)-1])
		}
		return "grep " + strings.Join(a, " ")
	},
	"exists": func(neg bool, a []string) string {
		if neg {
			return strings.Join(a, ", ") + " does not exist"
		}
		return strings.Join(a, ", ") + " exists"
	},
	"cmp":    cmpWords,
	"cmpenv": cmpWords,
}

func matchWords(what string, neg bool, a []string) string {
	pat := strings.Join(a, " ")
	if neg {
		return fmt.Sprintf("%s does not match %s", what, pat)
	}
	return fmt.Sprintf("%s matches %s", what, pat)
}

func cmpWords(neg bool, a []string) string {
	if len(a) != 2 {
		return "cmp " + strings.Join(a, " ")
	}
	x := a[0]
	switch x {
	case "stdout":
		x = "output"
	case "stderr":
		x = "error output"
	}
	if neg {
		return fmt.Sprintf("%s differs from %s", x, a[1])
	}
	return fmt.Sprintf("%s is exactly %s", x, a[1])
}

// translate turns one script line into its display form.
func translate(text string) TermLine {
	l := TermLine{Script: text}
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "#") {
		l.Kind, l.Text = KindComment, t
		return l
	}
	for strings.HasPrefix(t, "[") {
		end := strings.Index(t, "]")
		if end < 0 {
			break
		}
		if l.Cond != "" {
			l.Cond += " "
		}
		l.Cond += t[1:end]
		t = strings.TrimSpace(t[end+1:])
	}
	neg, maybe := false, false
	switch {
	case strings.HasPrefix(t, "! "):
		neg, t = true, strings.TrimSpace(t[2:])
	case strings.HasPrefix(t, "? "):
		maybe, t = true, strings.TrimSpace(t[2:])
	}
	name, rest, _ := strings.Cut(t, " ")
	rest = strings.TrimSpace(rest)
	args := strings.Fields(rest)
	switch {
	case name == "exec":
		l.Kind, l.Text, l.ExpectFail = KindCommand, rest, neg
	case name == "env" && len(args) > 0 && strings.Contains(args[0], "="):
		l.Kind, l.Text = KindCommand, "export "+rest
	case name == "cp" && len(args) == 2 && (args[0] == "stdout" || args[0] == "stderr"):
		l.Kind, l.Text = KindNote, fmt.Sprintf("save the %s above as %s", map[string]string{"stdout": "output", "stderr": "error output"}[args[0]], args[1])
	case name == "cp":
		l.Kind, l.Text = KindCommand, "cp "+rest
	case shellish[name] != nil:
		l.Kind, l.Text = KindCommand, shellish[name](args)
	case checkWords[name] != nil:
		l.Kind, l.Text = KindCheck, checkWords[name](neg, args)
	case name == "skip" || name == "stop":
		l.Kind, l.Text = KindNote, name+" "+rest
	default:
		// kbook's await/assert/error and other registered commands are
		// checks of the cluster state, shown as written.
		l.Kind, l.Text = KindCheck, strings.TrimSpace((map[bool]string{true: "! "}[neg])+t)
	}
	if maybe {
		l.Text += "   # may fail"
	}
	return l
}

// buildSteps combines a runbook's steps with their recorded results (nil:
// none) into terminal blocks. stdin redirections are folded into the next
// command, as a person would type it. dir is the docs root.
func buildSteps(rb *runbook.Runbook, res *report.Runbook, dir string) []Step {
	byIndex := map[int]*report.Step{}
	if res != nil {
		for _, s := range res.Steps {
			byIndex[s.Index] = s
		}
	}
	var out []Step
	for _, st := range rb.Steps {
		s := Step{Index: st.Index, Name: st.Name, Anchor: StepAnchor(st.Index), Line: st.Line, Outcome: OutcomeNotRun}
		rs := byIndex[st.Index]
		if st.Shell != nil {
			out = append(out, shellStep(s, st.Shell, rs, dir))
			continue
		}
		cmds := map[int]*report.Command{}
		if rs != nil {
			s.Outcome = stepOutcome(rs.Status)
			s.Reason = rs.Reason
			if rs.Duration > 0 {
				s.Duration = FormatDuration(rs.Duration)
			}
			if rs.Failure != nil {
				s.Failure = rs.Failure.Message
			}
			for _, c := range rs.Commands {
				cmds[c.Line] = c
			}
		}
		var copyLines []string
		stdin := ""
		for _, sl := range st.Script {
			if strings.TrimSpace(sl.Text) == "" {
				continue
			}
			l := translate(sl.Text)
			l.Line = sl.Num
			if f, ok := strings.CutPrefix(strings.TrimSpace(sl.Text), "stdin "); ok && l.Cond == "" {
				stdin = strings.TrimSpace(f)
				continue
			}
			if l.Kind == KindCommand && stdin != "" {
				l.Text += " < " + stdin
				stdin = ""
			}
			if l.Kind != KindComment {
				l.Outcome = OutcomeNotRun
				if c := cmds[sl.Num]; c != nil {
					l.Outcome = commandOutcome(c)
					l.Stdout, l.Stderr, l.Exit = c.Stdout, c.Stderr, c.ExitCode
					if c.Duration >= 100*time.Millisecond {
						l.Duration = FormatDuration(c.Duration)
					}
				}
			}
			if l.Kind == KindCommand {
				copyLines = append(copyLines, l.Text)
			}
			s.Lines = append(s.Lines, l)
		}
		s.Copy = strings.Join(copyLines, "\n")
		out = append(out, s)
	}
	return out
}

// shellStep is a shell block of a page that runs them, as its reader
// typed it: each command after a "$ " prompt (the lines that go on with
// it, a heredoc's body, without one), what the run captured after the
// last, and its mark. A block that did not run (skipped, or provided
// with or without a stand-in) shows no output: what a stand-in printed
// is not the page's block's; nor does one that passed or ran and whose
// output the page shows in the block after it (the reader would see it
// twice).
func shellStep(s Step, sh *runbook.Shell, rs *report.Step, dir string) Step {
	var copyLines []string
	starts := commandStarts(sh.Script)
	for i, sl := range sh.Script {
		t := strings.TrimSpace(sl.Text)
		switch {
		case t == "" && !starts.cont[i]:
			continue
		case strings.HasPrefix(t, "#") && !starts.cont[i]:
			s.Lines = append(s.Lines, TermLine{Kind: KindComment, Text: t, Script: sl.Text, Line: sl.Num})
			continue
		}
		kind := KindCommand
		if !starts.first[i] {
			kind = KindCont
		}
		s.Lines = append(s.Lines, TermLine{Kind: kind, Text: sl.Text, Script: sl.Text, Line: sl.Num, Outcome: OutcomeNotRun})
		copyLines = append(copyLines, sl.Text)
	}
	s.Copy = strings.Join(copyLines, "\n")
	if rs == nil || rs.Shell == nil {
		return s
	}
	s.Outcome = stepOutcome(rs.Status)
	s.Reason = rs.Reason
	if rs.Duration > 0 {
		s.Duration = FormatDuration(rs.Duration)
	}
	if rs.Failure != nil {
		s.Failure = rs.Failure.Message
	}
	b := rs.Shell
	s.Result, s.ResultLabel, s.ResultDetail = b.Result, resultLabels[b.Result], resultDetail(rs, dir)
	if rs.Status == report.Interrupted {
		s.ResultLabel = "Interrupted"
	}
	outcome := OutcomeNotRun
	switch b.Result {
	case report.BlockPassed, report.BlockRan:
		outcome = OutcomePassed
	case report.BlockFailed:
		outcome = OutcomeFailed
	}
	last := -1
	for i := range s.Lines {
		if s.Lines[i].Kind != KindComment {
			s.Lines[i].Outcome = outcome
			last = i
		}
	}
	// The page shows the output in a block of its own after this one:
	// unless it failed (what differs is then worth seeing), the run's
	// output is not shown a second time above it.
	ownOutput := sh.Expected != nil && sh.Expected.Block != nil && sh.Expected.Block.Line != s.Line && outcome == OutcomePassed
	if last >= 0 && outcome != OutcomeNotRun && len(rs.Commands) > 0 && !ownOutput {
		c := rs.Commands[0]
		l := &s.Lines[last]
		l.Stdout, l.Stderr, l.Exit = strings.TrimRight(c.Stdout, "\n"), strings.TrimRight(c.Stderr, "\n"), c.ExitCode
		if c.Duration >= 100*time.Millisecond {
			l.Duration = FormatDuration(c.Duration)
		}
	}
	return s
}

// resultDetail says why a shell block has its result, after its mark's
// word: "exit 0, output matched: shape", "the run's cluster
// (kbook.overlay.yaml:9)", the reason it was skipped, the failure. A file
// that declared it is named relative to the docs root dir (an overlay
// outside it by its name): the site shows no path of the machine that
// built it.
func resultDetail(rs *report.Step, dir string) string {
	b := rs.Shell
	by := b.By
	if abs, err := filepath.Abs(dir); err == nil && filepath.IsAbs(by) {
		if rel, err := filepath.Rel(abs, by); err == nil && !strings.HasPrefix(rel, "..") {
			by = filepath.ToSlash(rel)
		} else {
			by = filepath.Base(by)
		}
	}
	reason := rs.Reason
	if b.By != "" && by != b.By {
		reason = strings.ReplaceAll(reason, b.By, by)
	}
	// A command that runs until it is interrupted (kubectl get -w) was,
	// by kbook, once the expected output's last row had appeared: its
	// exit status is no word on the block.
	stopped := ""
	if b.Interrupted != "" {
		stopped = "; kbook then interrupted " + b.Interrupted + ", as a reader's Ctrl-C would, after its expected output's last row"
	}
	switch {
	case rs.Status == report.Interrupted:
		// The run was stopped (Ctrl-C, SIGTERM) while the block ran.
		return "interrupted: the run was stopped while the block ran, so it did not finish"
	case b.Result == report.BlockPassed:
		if b.Mode == "" {
			return "exit 0; the page shows no output for it"
		}
		if stopped != "" {
			return "output matched the page's (" + b.Mode + ")" + stopped
		}
		return "exit 0, output matched the page's (" + b.Mode + ")"
	case b.Result == report.BlockRan:
		if stopped != "" {
			return "its output is illustrative, not compared; kbook interrupted " + b.Interrupted + ", as a reader's Ctrl-C would, once it had printed as many lines as the page shows"
		}
		return "exit 0; its output is illustrative, not compared"
	case b.Result == report.BlockProvided:
		note := b.Note
		if by != "" {
			note += " (" + by + ")"
		}
		return note + stopped
	case b.Result == report.BlockFailed:
		if rs.Failure != nil {
			return rs.Failure.Message
		}
		return fmt.Sprintf("exit %d", b.ExitCode)
	}
	return reason
}

// lineStarts says, per line of a block, whether a command starts on it
// (it gets a prompt) and whether it continues one that started before
// (a heredoc's body, a quoted string's lines: kept as they are, blank or
// not).
type lineStarts struct{ first, cont []bool }

// commandStarts reads which lines of script start a command, with
// mvdan.cc/sh as the runner parses the block; a block that does not
// parse has a command on each line.
func commandStarts(script []runbook.Line) lineStarts {
	ls := lineStarts{first: make([]bool, len(script)), cont: make([]bool, len(script))}
	var b strings.Builder
	for _, l := range script {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	f, err := syntax.NewParser(syntax.KeepComments(true)).Parse(strings.NewReader(b.String()), "")
	if err != nil {
		for i := range ls.first {
			ls.first[i] = true
		}
		return ls
	}
	for _, st := range f.Stmts {
		first, end := int(st.Pos().Line())-1, int(st.End().Line())-1
		if first >= 0 && first < len(script) {
			ls.first[first] = true
		}
		for i := first + 1; i <= end && i < len(script); i++ {
			if !ls.first[i] {
				ls.cont[i] = true
			}
		}
	}
	return ls
}

func stepOutcome(s report.Status) string {
	switch s {
	case report.Passed:
		return OutcomePassed
	case report.Failed:
		return OutcomeFailed
	case report.Skipped:
		return OutcomeSkipped
	}
	return OutcomeNotRun
}

func commandOutcome(c *report.Command) string {
	switch {
	case c.Failed:
		return OutcomeFailed
	case c.Skipped:
		return OutcomeSkipped
	}
	return OutcomePassed
}

// FormatDuration rounds a duration for display: 850ms, 3.2s, 1m05s.
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
