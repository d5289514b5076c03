package runbook

import (
	"slices"
	"strings"
)

// ShellMayRun returns the page's shell steps that may run, as far as the
// page, its overlay and the machine say before anything runs: not those
// declared skipped or provided without a stand-in, not those that run a
// command that is neither on PATH (has), a bash builtin, nor a function
// or alias an earlier block that may run defines, and not those that use
// a variable (unless env has it), a file or a function only blocks that
// do not run would set, write or define. The runner decides each block
// again as it runs it; this is for what must be ready before (a cluster
// started only for blocks that are all skipped is wasted).
func (r *Runbook) ShellMayRun(has, env func(string) bool) map[*Step]bool {
	may := map[*Step]bool{}
	lost := map[string]bool{} // v:NAME, f:PATH, c:NAME of blocks that do not run
	defined := map[string]bool{}
	for _, st := range r.Steps {
		sh := st.Shell
		if sh == nil {
			continue
		}
		n := &sh.Needs
		runs := sh.Skip == "" && (sh.Provided == "" || sh.Standin)
		for _, c := range n.Commands {
			if !runs {
				break
			}
			switch {
			case defined[c]:
			case lost["c:"+c]:
				runs = false
			case !IsBashBuiltin(c) && !has(c):
				runs = false
			}
		}
		for _, v := range n.Vars {
			if runs && lost["v:"+v] && !env(v) {
				runs = false
			}
		}
		if runs {
			var files []string
			for k := range lost {
				if f, ok := strings.CutPrefix(k, "f:"); ok {
					files = append(files, f)
				}
			}
			if _, f := n.UsesFile(files); f != "" {
				runs = false
			}
		}
		mark := func(kind string, names []string) {
			for _, s := range names {
				if runs {
					delete(lost, kind+s)
				} else {
					lost[kind+s] = true
				}
			}
		}
		mark("v:", n.Sets)
		mark("f:", n.Writes)
		mark("c:", n.Funcs)
		if runs {
			for _, f := range n.Funcs {
				defined[f] = true
			}
			may[st] = true
		}
	}
	return may
}

// bashBuiltins are bash's builtins and reserved words (bash 5.2's
// `compgen -b -k`): commands that are on no PATH.
var bashBuiltins = []string{
	".", ":", "[", "[[", "]]", "alias", "bg", "bind", "break", "builtin", "caller", "case", "cd", "command",
	"compgen", "complete", "compopt", "continue", "coproc", "declare", "dirs", "disown", "do", "done",
	"echo", "elif", "else", "enable", "esac", "eval", "exec", "exit", "export", "false", "fc", "fg", "fi",
	"for", "function", "getopts", "hash", "help", "history", "if", "in", "jobs", "kill", "let", "local",
	"logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray", "readonly", "return",
	"select", "set", "shift", "shopt", "source", "suspend", "test", "then", "time", "times", "trap", "true",
	"type", "typeset", "ulimit", "umask", "unalias", "unset", "until", "wait", "while", "{", "}", "!",
}

// IsBashBuiltin reports whether name is a bash builtin or reserved word.
func IsBashBuiltin(name string) bool { return slices.Contains(bashBuiltins, name) }
