package main

import (
	"encoding/json"
	"fmt"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/spf13/cobra"
)

func newCheckCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "check [PATH...]",
		Short: "Lint runbooks without running them",
		Long: `Parse runbooks (default: runbooks) and report problems a reader would trip over:

  shell-not-run    (error)   a sh/bash/console block that no step executes;
                             make it a testscript step or mark it ` + "```sh norun" + `
  no-steps         (error)   a Markdown runbook given by name with no testscript block
  file-unused      (warning) a file= block that no step mentions
  exec-undeclared  (warning) a step execs a program that is not declared in
                             requires: or guarded by an [exec:PROG] condition
  link-broken      (error)   a link to a page of the docs that does not exist
  anchor-broken    (error)   a link to a #fragment the target page does not have

Links are checked across the whole docs repository the runbooks belong to
(the folder holding kbook.yaml, else the current one if it has content/),
as kbook build would.

Exit status: 0 no errors, 1 errors found, 2 a runbook does not parse.`,
		Example: `  kbook check runbooks/
  kbook check -o json runbooks/first-runbook.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"runbooks"}
			}
			if output != "text" && output != "json" {
				return usageError(fmt.Errorf("-o %q: want text or json", output))
			}
			rbs, err := runbook.Load(args)
			if err != nil {
				return usageError(err)
			}
			found := []findings.Finding{}
			errors := 0
			for _, rb := range rbs {
				for _, f := range runbook.Lint(rb) {
					found = append(found, f)
					if f.Severity == findings.Error {
						errors++
					}
				}
			}
			// The docs the runbooks belong to: links and anchors.
			links, pages, err := docsLinkFindings(args)
			if err != nil {
				return usageError(err)
			}
			found = append(found, links...)
			errors += len(links)
			out := cmd.OutOrStdout()
			if output == "json" {
				data, _ := json.MarshalIndent(found, "", "  ")
				fmt.Fprintln(out, string(data))
			} else {
				for _, f := range found {
					fmt.Fprintln(out, f)
				}
				fmt.Fprintf(out, "checked %d runbooks%s: %d errors, %d warnings\n", len(rbs), pages, errors, len(found)-errors)
			}
			if errors > 0 {
				return &exitError{exitFailed, nil}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}
