package runner

import (
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// varRef finds $NAME and ${NAME} in a script line. testscript expands them
// outside single quotes; inside them a shell (exec sh -c '...') does, from
// the same environment.
var varRef = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)

// emptyVars lists the variables a command line names that are empty in the
// script's environment when it runs.
func emptyVars(ts *testscript.TestScript, line string) []string {
	var out []string
	for _, m := range varRef.FindAllStringSubmatch(line, -1) {
		if ts.Getenv(m[1]) == "" {
			out = append(out, m[1])
		}
	}
	return out
}

// unsetHint explains a failure of a command that used empty variables:
// scripts inherit no variable of kbook's environment, which surprises
// whoever exported one in the shell. It returns "" when there is none.
func unsetHint(names []string) string {
	if len(names) == 0 {
		return ""
	}
	seen := map[string]bool{}
	var inHost, unset []string
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		if os.Getenv(n) != "" {
			inHost = append(inHost, n)
		} else {
			unset = append(unset, n)
		}
	}
	sort.Strings(inHost)
	sort.Strings(unset)
	var parts []string
	if len(inHost) > 0 {
		parts = append(parts, vars(inHost)+" empty in the script though set in kbook's environment, which scripts do not inherit: pass "+them(inHost)+" with "+flags(inHost, ""))
	}
	if len(unset) > 0 {
		parts = append(parts, vars(unset)+" not set: scripts see only the variables kbook sets and those passed with "+flags(unset, "=VALUE"))
	}
	return strings.Join(parts, "; ")
}

func vars(names []string) string {
	s := "$" + strings.Join(names, ", $")
	if len(names) == 1 {
		return s + " is"
	}
	return s + " are"
}

func them(names []string) string {
	if len(names) == 1 {
		return "it"
	}
	return "them"
}

func flags(names []string, suffix string) string {
	fs := make([]string, len(names))
	for i, n := range names {
		fs[i] = "--env " + n + suffix
	}
	return strings.Join(fs, " ")
}
