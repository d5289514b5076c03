package runbook

import (
	"fmt"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
)

// NoRun is the info-string flag that marks a shell block as prose on purpose.
const NoRun = "norun"

// NoEOL is the info-string flag of a file block whose content has no final
// newline (a Markdown block always ends with one): output such as printf's
// or kubectl -o jsonpath's, kept by --update.
const NoEOL = "noeol"

// shellLangs are fence languages that show commands a reader would run.
var shellLangs = map[string]bool{
	"sh": true, "bash": true, "shell": true, "zsh": true, "console": true,
	"shell-session": true, "shellsession": true, "terminal": true,
}

// commonProgs are programs a runbook may exec without declaring them.
var commonProgs = map[string]bool{
	"sh": true, "bash": true, "echo": true, "cat": true, "true": true, "false": true,
	"env": true, "test": true, "grep": true, "sed": true, "ls": true, "sleep": true,
	"kbook": true, "printf": true, "head": true, "tail": true, "wc": true, "sort": true,
	"diff": true, "mkdir": true, "touch": true, "cp": true, "mv": true, "rm": true,
}

// Lint checks a parsed runbook for problems the parser accepts but a
// reader would trip over (findings in the shared vocabulary, File as the
// runbook path):
//
//   - shell-not-run (error): a shell block that no step executes, not marked norun;
//   - no-steps (error): a Markdown runbook without testscript blocks;
//   - file-unused (warning): a file= block no step mentions;
//   - exec-undeclared (warning): a step execs a program that neither the
//     front matter's requires nor an [exec:PROG] condition declares.
func Lint(r *Runbook) []findings.Finding {
	var out []findings.Finding
	add := func(line int, rule string, sev findings.Severity, format string, args ...any) {
		out = append(out, findings.Finding{File: r.Path, Line: line, Rule: rule, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}
	if r.Format == Markdown && len(r.Steps) == 0 {
		add(1, RuleNoSteps, findings.Error, "no %s blocks: nothing in this runbook is executed", StepLang)
	}
	used := map[*Block]bool{}
	for _, s := range r.Steps {
		if s.Shell != nil {
			used[s.Block] = true
			if s.Shell.Expected != nil {
				used[s.Shell.Expected.Block] = true
			}
		}
	}
	for _, b := range r.Blocks {
		if shellLangs[strings.ToLower(b.Lang)] && !b.Has(NoRun) && !used[b] {
			add(b.Line, RuleShellNotRun, findings.Error, "%s", shellNotRunMessage(r, b))
		}
	}
	var script strings.Builder
	for _, s := range r.Steps {
		for _, l := range s.Script {
			script.WriteString(l.Text)
			script.WriteByte('\n')
		}
		if s.Shell != nil {
			// a shell block's commands mention files too
			for _, l := range s.Shell.Script {
				script.WriteString(l.Text)
				script.WriteByte('\n')
			}
		}
	}
	all := script.String()
	for _, f := range r.Files {
		if !mentions(all, f.Name) {
			add(f.Line, RuleFileUnused, findings.Warning, "file %s is written to $WORK but no step mentions it", f.Name)
		}
	}
	// A program is declared by requires, or by an [exec:PROG] or
	// [!exec:PROG] condition anywhere in the runbook (a guard such as
	// "[!exec:kubectl] skip" covers the lines after it).
	declared := map[string]bool{}
	for _, req := range r.Meta.Requires {
		if p, ok := strings.CutPrefix(req, "exec:"); ok {
			declared[p] = true
		}
	}
	for _, s := range r.Steps {
		for _, l := range s.Script {
			_, conds := execProgram(l.Text)
			for c := range conds {
				if p, ok := strings.CutPrefix(strings.TrimPrefix(c, "!"), "exec:"); ok {
					declared[p] = true
				}
			}
		}
	}
	for _, s := range r.Steps {
		for _, l := range s.Script {
			prog, conds := execProgram(l.Text)
			if prog == "" || commonProgs[prog] || declared[prog] || conds["exec:"+prog] {
				continue
			}
			add(l.Num, RuleExecUndeclared, findings.Warning,
				"exec %s: declare it (requires: [exec:%s] in the front matter, or a [exec:%s] condition) so machines without it skip instead of fail",
				prog, prog, prog)
			declared[prog] = true // once per program
		}
	}
	return out
}

// shellNotRunMessage says why a shell block does not run and how to make
// it run.
func shellNotRunMessage(r *Runbook, b *Block) string {
	if r.blocksOptIn && (isShellLang(b.Lang) || isConsoleLang(b.Lang)) {
		return fmt.Sprintf("%s block is shown to readers but never executed (this page runs only its blocks with the %s flag): add it to this one (```%s %s), run all the page's shell blocks (run: %s in its front matter, or its path under run.pages in kbook.yaml), or mark it ```%s %s if it must not run",
			b.Lang, RunFlag, b.Lang, RunFlag, RunShell, b.Lang, NoRun)
	}
	if r.shellWhy != "" {
		// The page runs its shell blocks, but not this kind.
		return fmt.Sprintf("%s block is shown to readers but never executed (this page runs bash, sh, shell and console blocks with $ prompts): make it one of those or a %s step, or mark it ```%s %s if it must not run",
			b.Lang, StepLang, b.Lang, NoRun)
	}
	return fmt.Sprintf("%s block is shown to readers but never executed: run the page's shell blocks (run: %s in its front matter, or its path under run.pages in kbook.yaml), run this one (```%s %s), make it a %s step, or mark it ```%s %s if it must not run",
		b.Lang, RunShell, b.Lang, RunFlag, StepLang, b.Lang, NoRun)
}

// execProgram returns the program an "exec" line runs and the conditions
// guarding it.
func execProgram(line string) (string, map[string]bool) {
	prog, _, conds := execLine(line)
	return prog, conds
}

// ExecArgs returns the program an "exec" script line runs and its
// arguments, past its [conditions] and "!"; "" when the line is no exec.
func ExecArgs(line string) (prog string, args []string) {
	prog, args, _ = execLine(line)
	return prog, args
}

func execLine(line string) (prog string, args []string, conds map[string]bool) {
	words := strings.Fields(line)
	conds = map[string]bool{}
	for len(words) > 0 && strings.HasPrefix(words[0], "[") && strings.HasSuffix(words[0], "]") {
		conds[strings.Trim(words[0], "[]")] = true
		words = words[1:]
	}
	if len(words) > 0 && words[0] == "!" {
		words = words[1:]
	}
	if len(words) < 2 || words[0] != "exec" {
		return "", nil, conds
	}
	return words[1], words[2:], conds
}

// mentions reports whether name appears in s as a whole path token.
func mentions(s, name string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		before := j == 0 || strings.ContainsRune(" \t\n/=\"'$", rune(s[j-1]))
		after := end == len(s) || strings.ContainsRune(" \t\n\"'", rune(s[end]))
		if before && after {
			return true
		}
		i = j + 1
	}
}

// Programs lists, sorted and once each, the programs a runbook may run:
// those its steps exec, those its [exec:PROG] conditions test and those
// its front matter requires. The runner puts what they resolve to in the
// cache key.
func (r *Runbook) Programs() []string {
	set := map[string]bool{}
	for _, s := range r.Steps {
		if s.Shell != nil {
			set["bash"] = true // the page's session
			// What its blocks run: one installed (or gone) since
			// is another result.
			for _, c := range s.Shell.Needs.Commands {
				set[c] = true
			}
		}
	}
	for _, req := range r.Meta.Requires {
		if p, ok := strings.CutPrefix(req, "exec:"); ok && p != "" {
			set[p] = true
		}
	}
	for _, s := range r.Steps {
		for _, l := range s.Script {
			prog, conds := execProgram(l.Text)
			if prog != "" && !strings.HasPrefix(prog, "$") {
				set[strings.Trim(prog, `'"`)] = true
			}
			for c := range conds {
				if p, ok := strings.CutPrefix(strings.TrimPrefix(c, "!"), "exec:"); ok && p != "" {
					set[p] = true
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
