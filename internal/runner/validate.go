package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/runbook"
)

// builtinCmds are testscript's own commands (go-internal v1.16).
var builtinCmds = []string{
	"cd", "chmod", "cmp", "cmpenv", "cp", "env", "exec", "exists", "grep", "kill",
	"mkdir", "mv", "rm", "skip", "stderr", "stdin", "stdout", "stop", "symlink",
	"ttyin", "ttyout", "unix2dos", "unquote", "wait",
}

// builtinConds are testscript's own conditions besides exec:PROG and goX.Y.
var builtinConds = strings.Fields(`short net link symlink unix gc gccgo
	aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris wasip1 windows zos
	386 amd64 arm arm64 loong64 mips mipsle mips64 mips64le ppc64 ppc64le riscv64 s390x wasm`)

var goVersionCond = regexp.MustCompile(`^go1\.\d+$`)

// Validate checks, before anything runs, what Check checks and returns
// the first problem as a *findings.InputError (file and line), so that a typo is
// reported at its line instead of failing a run halfway.
func (r *Runner) Validate(rbs []*runbook.Runbook) error {
	for _, f := range r.Check(rbs) {
		return &findings.InputError{File: f.File, Line: f.Line, Err: errors.New(f.Message)}
	}
	return nil
}

// The rules of Check.
const (
	RuleUnknownCommand   = "unknown-command"
	RuleUnknownCondition = "unknown-condition"
	RuleInputs           = "inputs-no-match"
	RuleCRDs             = "crds-missing"
)

// Check lists what would stop the runbooks from running at all, as error
// findings at their lines: script lines naming an unknown command or
// condition (or a condition not closed with ]), front matter inputs that
// match no file, front matter crds that do not exist. kbook run rejects
// these before anything runs (exit 2); kbook check reports them with its
// lint findings, so both agree.
func (r *Runner) Check(rbs []*runbook.Runbook) []findings.Finding {
	cmds := map[string]bool{}
	for _, c := range builtinCmds {
		cmds[c] = true
	}
	for c := range r.cmds {
		if c != markerCmd {
			cmds[c] = true
		}
	}
	conds := map[string]bool{}
	for _, c := range builtinConds {
		conds[c] = true
	}
	for c := range r.conds {
		conds[c] = true
	}
	var out []findings.Finding
	add := func(rb *runbook.Runbook, line int, rule, msg string) {
		out = append(out, findings.Finding{File: rb.Path, Line: line, Rule: rule, Severity: findings.Error, Message: msg})
	}
	for _, rb := range rbs {
		dir := filepath.Dir(rb.Path)
		for i, pat := range rb.Meta.Inputs {
			matches, err := filepath.Glob(filepath.Join(dir, pat))
			switch {
			case err != nil:
				add(rb, runbook.MetaLine(rb.Meta.InputsLines, i), RuleInputs, fmt.Sprintf("front matter inputs: bad pattern %q: %v", pat, err))
			case len(matches) == 0:
				add(rb, runbook.MetaLine(rb.Meta.InputsLines, i), RuleInputs, fmt.Sprintf("front matter inputs: %q matches no file (patterns are relative to the runbook's directory, %s)", pat, dir))
			}
		}
		for i, p := range rb.Meta.CRDs {
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				add(rb, runbook.MetaLine(rb.Meta.CRDsLines, i), RuleCRDs, fmt.Sprintf("front matter crds: %s does not exist (paths are relative to the runbook's directory, %s)", p, dir))
			}
		}
		for _, st := range rb.Steps {
			for _, l := range st.Script {
				if rule, err := checkLine(l.Text, cmds, conds, r.path); err != nil {
					add(rb, l.Num, rule, err.Error())
				}
			}
		}
	}
	return out
}

// knownCond reports whether c names a condition: a builtin, a registered
// name, or a member of a registered family ("api:x").
func knownCond(conds map[string]bool, c string) bool {
	if conds[c] || strings.HasPrefix(c, "exec:") || goVersionCond.MatchString(c) {
		return true
	}
	i := strings.Index(c, ":")
	return i > 0 && len(c) > i+1 && conds[c[:i+1]]
}

// checkLine returns the rule a script line breaks and how, or "", nil.
func checkLine(line string, cmds, conds map[string]bool, path string) (string, error) {
	// As testscript splits it; the parser has rejected lines it cannot
	// split (runbook.Words).
	words, err := runbook.Words(line)
	if err != nil || len(words) == 0 {
		return "", nil
	}
	for len(words) > 0 && strings.HasPrefix(words[0], "[") {
		w := words[0]
		if !strings.HasSuffix(w, "]") {
			return RuleUnknownCondition, fmt.Errorf("condition %s is not closed with ]", w)
		}
		c := strings.TrimPrefix(strings.TrimSpace(w[1:len(w)-1]), "!")
		if !knownCond(conds, c) {
			return RuleUnknownCondition, fmt.Errorf("unknown condition [%s] (kbook adds: %s; testscript has exec:PROG, unix, net, GOOS and GOARCH names, go1.N)", c, strings.Join(sortedKeys(conds, builtinConds), ", "))
		}
		words = words[1:]
	}
	if len(words) > 0 && words[0] == "!" {
		words = words[1:]
	}
	if len(words) == 0 {
		return RuleUnknownCommand, fmt.Errorf("no command after the condition or !")
	}
	name := words[0]
	if cmds[name] {
		return "", nil
	}
	if _, err := lookPath(name, path); err == nil {
		return RuleUnknownCommand, fmt.Errorf("unknown command %q: to run the program %s, write exec %s", name, name, strings.Join(words, " "))
	}
	return RuleUnknownCommand, fmt.Errorf("unknown command %q (commands: %s)", name, strings.Join(sortedKeys(cmds, nil), ", "))
}

// sortedKeys lists the keys of m that are not in skip.
func sortedKeys(m map[string]bool, skip []string) []string {
	drop := map[string]bool{}
	for _, s := range skip {
		drop[s] = true
	}
	var out []string
	for k := range m {
		if !drop[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
