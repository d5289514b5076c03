package main

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/k0rdent/kbook/internal/console"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
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
  unknown-command  (error)   a script line names no testscript or kbook command
  unknown-condition (error)  a [condition] kbook run does not know
  inputs-no-match  (error)   a front matter inputs: pattern matches no file
  crds-missing     (error)   a front matter crds: path does not exist
  link-broken      (error)   a link to a page of the docs that does not exist
  anchor-broken    (error)   a link to a #fragment the target page does not have

The unknown-* , inputs and crds checks are the ones kbook run makes before
it runs anything (it exits 2 on them), so check and run agree.

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
			// The same validation kbook run makes before it runs anything.
			r, err := runner.New(runner.Options{Cmds: kubecmd.Commands()})
			if err != nil {
				return err
			}
			byFile := map[string][]findings.Finding{}
			for _, f := range r.Check(rbs) {
				byFile[f.File] = append(byFile[f.File], f)
			}
			found := []findings.Finding{}
			errors := 0
			for _, rb := range rbs {
				fs := append(byFile[rb.Path], runbook.Lint(rb)...)
				sort.SliceStable(fs, func(i, j int) bool { return fs[i].Line < fs[j].Line })
				for _, f := range fs {
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
				fmt.Fprintf(out, "checked %s%s: %s, %s\n", console.Count(len(rbs), "runbook"), pages,
					console.Count(errors, "error"), console.Count(len(found)-errors, "warning"))
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
