package runner

import "github.com/k0rdent/kbook/internal/findings"

const categoryRun = "What kbook run checks first"

// Registry holds Check's rules: what stops runbooks from running at all
// (kbook run exits 2 on them; kbook check lists them in its help).
var Registry = findings.NewRegistry([]string{categoryRun},
	findings.Rule{ID: RuleUnknownCommand, Category: categoryRun, Severity: findings.Error,
		Title:       "a script line names no testscript or kbook command",
		Description: "A script line's first word (after its conditions and `!`) is neither a testscript command nor one kbook adds: testscript would stop the runbook there. To run a program, write `exec PROG`."},
	findings.Rule{ID: RuleUnknownCondition, Category: categoryRun, Severity: findings.Error,
		Title:       "a [condition] kbook run does not know",
		Description: "A `[condition]` that is neither testscript's (`exec:PROG`, `unix`, `net`, GOOS and GOARCH names, `go1.N`) nor one kbook adds, or one not closed with `]`."},
	findings.Rule{ID: RuleInputs, Category: categoryRun, Severity: findings.Error,
		Title:       "a front matter inputs: pattern matches no file",
		Description: "A front matter `inputs:` pattern (relative to the runbook's directory) matches no file, or is no valid pattern."},
	findings.Rule{ID: RuleCRDs, Category: categoryRun, Severity: findings.Error,
		Title:       "a front matter crds: path does not exist",
		Description: "A front matter `crds:` path (relative to the runbook's directory) does not exist, so the API server could not serve those CRDs."},
)
