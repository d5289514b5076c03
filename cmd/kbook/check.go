package main

import (
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/run"
	"github.com/spf13/cobra"
)

func newCheckCmd() *cobra.Command {
	var output string
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
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := run.Lint(args)
			if err != nil {
				return failure(err)
			}
			if err := findings.Write(cmd.OutOrStdout(), output, run.LintRegistry, rep); err != nil {
				return err
			}
			if code := run.LintRegistry.ExitCode(rep); code != findings.ExitOK {
				return &exitError{code, nil}
			}
			return nil
		},
	}
	outputFlag(cmd.Flags(), &output, findings.Formats...)
	return cmd
}
