package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/plural"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
	"github.com/k0rdent/kbook/internal/site"
	sitelinks "github.com/k0rdent/kbook/internal/site/links"
	"github.com/spf13/cobra"
)

// checkRegistry holds every rule kbook check reports: runbook lint, the
// checks kbook run makes before it runs anything, and the links.
var checkRegistry = findings.Join(runbook.Registry, runner.Registry, sitelinks.Registry)

func newCheckCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "check [PATH...]",
		Short: "Lint runbooks without running them",
		Long: `Parse runbooks (default: runbooks) and report problems a reader would trip over:

` + findings.RuleList(checkRegistry) + `
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
			if len(args) == 0 {
				args = []string{"runbooks"}
			}
			// A docs repository without runbooks is fine: its runbooks
			// folder may be missing or empty, as any folder given may be.
			var runbookDirs []string
			if root := site.FindRoot(args); root != "" {
				if cfg, err := site.LoadConfig(root); err == nil {
					runbookDirs = append(runbookDirs, filepath.Clean(filepath.Join(root, cfg.Runbooks)))
				}
			}
			paths, emptyProjects, err := site.ExpandRunbookPathsAllowEmpty(args)
			if err != nil {
				return usageError(err)
			}
			rbs, empty, err := runbook.LoadAllowEmpty(paths, runbookDirs)
			empty = append(emptyProjects, empty...)
			if err != nil {
				return usageError(err)
			}
			// The same validation kbook run makes before it runs anything.
			r, err := runner.New(runner.Options{Cmds: kubecmd.Commands()})
			if err != nil {
				return err
			}
			found := r.Check(rbs)
			for _, rb := range rbs {
				found = append(found, runbook.Lint(rb)...)
			}
			// The docs the runbooks belong to: links and anchors.
			links, pages, err := docsLinkFindings(args)
			if err != nil {
				return usageError(err)
			}
			rep := &findings.Report{
				Findings: checkRegistry.Finish(append(found, links...), nil),
				Detail:   checked{runbooks: len(rbs), empty: empty, pages: pages},
			}
			if err := findings.Write(cmd.OutOrStdout(), output, checkRegistry, rep); err != nil {
				return err
			}
			if code := checkRegistry.ExitCode(rep); code != findings.ExitOK {
				return &exitError{code, nil}
			}
			return nil
		},
	}
	outputFlag(cmd.Flags(), &output, findings.Formats...)
	return cmd
}

// checked is what kbook check read: its summary line counts errors and
// warnings always, "no problems" or not.
type checked struct {
	runbooks int
	empty    []string // folders given that hold no runbooks
	pages    string   // " and the links of N pages", or ""
}

func (checked) Head(io.Writer) {}
func (checked) Tail(io.Writer) {}

func (c checked) Summary(errors, warnings, infos int) string {
	none := ""
	if len(c.empty) > 0 {
		none = " (no runbooks in " + strings.Join(c.empty, ", ") + ")"
	}
	s := fmt.Sprintf("checked %s%s%s: %s, %s", plural.Count(c.runbooks, "runbook"), none, c.pages,
		plural.Count(errors, "error"), plural.Count(warnings, "warning"))
	if infos > 0 {
		s += ", " + plural.Count(infos, "info")
	}
	return s
}

func (c checked) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Runbooks int `json:"runbooks"`
	}{c.runbooks})
}

// docsLinkFindings checks the links of the docs repository the paths
// belong to; pages describes what was checked for the summary line.
func docsLinkFindings(paths []string) (fs []findings.Finding, pages string, err error) {
	root := site.FindRoot(paths)
	if root == "" {
		return nil, "", nil
	}
	p, err := site.Load(root)
	if err != nil {
		return nil, "", err
	}
	fs = site.CheckLinks(p, "")
	for i := range fs {
		fs[i].File = site.UnderDir(root, fs[i].File)
	}
	return fs, " and the links of " + plural.Count(len(p.Pages), "page"), nil
}
