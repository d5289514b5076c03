package main

import (
	"io"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/run"
	"github.com/spf13/cobra"
)

func newCheckCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "check [PATH...]",
		Short: "Lint runbooks without running them",
		Long: `Parse runbooks (default: runbooks) and report problems a reader would trip over:

` + findings.RuleList(run.LintRegistry) + `
The unknown-* , inputs and crds checks are the ones kbook run makes before
it runs anything (it exits 2 on them), so check and run agree.

Links are checked across the whole docs repository the runbooks belong to
(the folder holding kbook.yaml, else the current one if it has content/),
as kbook build would.

A folder without runbooks (a docs repository that has none yet, or whose
runbooks folder is missing) is no error: check says so and checks the links.

Exit status: 0 no errors, 1 errors found, 2 a runbook does not parse.`,
		Example: `  kbook check runbooks/
  kbook check -o json runbooks/first-runbook.md
  kbook check -o sarif runbooks/ > kbook-check.sarif`,
	}
	checkCmd(cmd, run.LintRegistry, func(_ *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		return one(run.Lint(args))
	})
	return cmd
}
