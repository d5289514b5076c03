package runbook

import "github.com/k0rdent/kbook/internal/findings"

// The IDs of Lint's rules.
const (
	RuleShellNotRun    = "shell-not-run"
	RuleNoSteps        = "no-steps"
	RuleFileUnused     = "file-unused"
	RuleExecUndeclared = "exec-undeclared"
)

// CategoryLint is the category of the rules that read a runbook without
// running it (kbook check groups them).
const CategoryLint = "Runbook lint"

// Registry holds Lint's rules (kbook check lists them in its help).
var Registry = findings.NewRegistry([]string{CategoryLint},
	findings.Rule{ID: RuleShellNotRun, Category: CategoryLint, Severity: findings.Error,
		Title:       "a sh/bash/console block that no step executes; run the page's shell blocks (run: shell), make it a testscript step or mark it ```sh norun",
		Description: "A shell block (sh, bash, console, ...) shows readers commands that no step runs, so nothing keeps them working: documentation rots there. Run the page's shell blocks (`run: shell` in its front matter, or the page under `run.pages` in kbook.yaml: its bash, sh and shell blocks and its console blocks with `$ ` prompts then run in one bash session, the output block after each compared), run that block alone with the `run` flag (```` ```sh run ````: on a page nothing else opted in, only the blocks with the flag run), make it a `testscript` step, or mark it ```` ```sh norun ```` when it must not run."},
	findings.Rule{ID: RuleNoSteps, Category: CategoryLint, Severity: findings.Error,
		Title:       "a Markdown runbook given by name with no testscript block",
		Description: "A Markdown file given to kbook as a runbook has no `testscript` block: nothing in it is executed or verified."},
	findings.Rule{ID: RuleFileUnused, Category: CategoryLint, Severity: findings.Warning,
		Title:       "a file= block that no step mentions",
		Description: "A `file=NAME` block is written to `$WORK`, but no step names it: the reader sees a file that the runbook never uses."},
	findings.Rule{ID: RuleExecUndeclared, Category: CategoryLint, Severity: findings.Warning,
		Title:       "a step execs a program that is not declared in requires: or guarded by an [exec:PROG] condition",
		Description: "A step runs a program other than the common tools without `requires: [exec:PROG]` in the front matter or an `[exec:PROG]` condition: on a machine without it the runbook fails instead of being skipped."},
)
