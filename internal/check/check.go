package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	runtarget "github.com/k0rdent/kbook/internal/cluster/target"
	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/plural"
	"github.com/k0rdent/kbook/internal/run"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
	"github.com/k0rdent/kbook/internal/site"
	sitelinks "github.com/k0rdent/kbook/internal/site/links"
)

// Registry holds every rule kbook check reports: runbook lint, the
// checks run.Run makes before it runs anything, the links, and the pages.
var Registry = findings.Join(runbook.Registry, runtarget.Registry, runner.Registry, sitelinks.Registry, pageRegistry)

// RulePageError is an MkDocs page kbook cannot translate.
const RulePageError = "page-error"

var pageRegistry = findings.NewRegistry([]string{"Pages"},
	findings.Rule{ID: RulePageError, Category: "Pages", Severity: findings.Error, Input: true,
		Title: "an MkDocs page kbook cannot translate (a macro error)",
		Description: "A page of an MkDocs project whose macros fail (an undefined variable with on_undefined: strict, a template that does not parse): " +
			"kbook build and serve stop at it; kbook run does not, unless the page is a runbook. Reported at its line, as bad input."},
)

// Options are kbook check's.
type Options struct {
	// Paths are the runbooks, folders and docs repositories to check
	// (default: runbooks).
	Paths []string
	// Overlays are --overlay files, applied after kbook.yaml's run.overlay
	// and the docs root's kbook.overlay.yaml.
	Overlays []string
}

// Check is kbook check: it checks the runbooks of o.Paths (default:
// runbooks) without running them: the checks run.Run makes before it runs anything,
// runbook lint, and the links of the docs repository they belong to. A
// folder without runbooks is no error. A runbook that does not parse is a
// findings.InputError. The overlays apply as kbook run applies them
// (kbook.yaml's run.overlay, the docs root's kbook.overlay.yaml, then
// o.Overlays): a bad overlay, or a rule that matches nothing, is a
// findings.InputError at its line. A context already done checks nothing.
func Check(ctx context.Context, o Options) (*findings.Report, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return checkWith(o.Paths, &site.Loader{Options: []site.LoadOption{site.WithPageErrors()}}, o.Overlays...)
}

// checkWith is Check with l reading every project once: the docs repository's
// runbooks folder, an MkDocs project's runbook pages and the links all
// come from one read.
func checkWith(paths []string, l *site.Loader, overlays ...string) (*findings.Report, error) {
	if len(paths) == 0 {
		var err error
		if paths, err = run.DefaultPaths(); err != nil {
			return nil, findings.Input(err)
		}
	}
	// A docs repository without runbooks is fine: its runbooks folder may
	// be missing or empty, as any folder given may be. A repository that
	// does not load is reported with the links, after the runbooks.
	var runbookDirs []string
	var shell runbook.ShellPages
	var runCfg *docsrepo.RunConfig
	var macros runbook.Macros
	root := docsrepo.FindRoot(paths)
	if root != "" {
		// kbook.yaml first, as kbook run reads it: which pages run
		// their shell blocks, and the overlay, depend on it.
		cfg, err := docsrepo.LoadConfig(root)
		if err != nil {
			return nil, findings.Input(docsrepo.ErrorUnder(root, err))
		}
		if macros, err = run.PageMacros(root, cfg.Variables); err != nil {
			return nil, findings.Input(docsrepo.ErrorUnder(root, err))
		}
		if p, err := l.Load(root); err == nil {
			runbookDirs = append(runbookDirs, filepath.Clean(filepath.Join(root, p.Config.Runbooks)))
			shell = run.ShellPages(root, p.Config.Run)
			runCfg = &p.Config.Run
		}
	}
	files, emptyProjects, err := l.ExpandRunbookPathsAllowEmpty(paths)
	if err != nil {
		return nil, findings.Input(err)
	}
	ovs, err := run.LoadOverlays(root, runCfg, overlays)
	if err != nil {
		return nil, findings.Input(err)
	}
	rbs, empty, err := runbook.LoadAllowEmpty(files, runbookDirs, run.OverlayPages(root, shell, ovs), macros)
	empty = append(emptyProjects, empty...)
	if err != nil {
		return nil, findings.Input(err)
	}
	if err := run.ApplyOverlays(root, ovs, rbs); err != nil {
		return nil, findings.Input(err)
	}
	r, err := runner.New(runner.Options{Cmds: kubecmd.Commands()})
	if err != nil {
		return nil, err
	}
	found := r.Check(rbs)
	for _, rb := range rbs {
		found = append(found, runbook.Lint(rb)...)
		found = append(found, runtarget.Lint(rb)...)
	}
	links, pages, err := docsLinks(paths, l)
	if err != nil {
		return nil, findings.Input(err)
	}
	return &findings.Report{
		Findings: Registry.Finish(append(found, links...), nil),
		Detail:   linted{runbooks: len(rbs), empty: empty, pages: pages},
	}, nil
}

// docsLinks checks the links of the docs repository the paths belong to;
// pages describes what was checked for the summary line.
func docsLinks(paths []string, l *site.Loader) (fs []findings.Finding, pages string, err error) {
	root := docsrepo.FindRoot(paths)
	if root == "" {
		return nil, "", nil
	}
	p, err := l.Load(root)
	if err != nil {
		return nil, "", err
	}
	fs = site.CheckLinks(p, "")
	for _, err := range p.PageErrors {
		fs = append(fs, pageFinding(err))
	}
	for i := range fs {
		fs[i].File = docsrepo.UnderDir(root, fs[i].File)
	}
	return fs, " and the links of " + plural.Count(len(p.Pages), "page"), nil
}

// pageFinding is a page's error (a findings.InputError at its line, as
// site.WithPageErrors keeps it) as a RulePageError finding.
func pageFinding(err error) findings.Finding {
	f := findings.Finding{Rule: RulePageError, Message: err.Error()}
	var ie *findings.InputError
	if errors.As(err, &ie) && ie.File != "" {
		f.File, f.Line, f.Message = ie.File, ie.Line, ie.Err.Error()
	}
	return f
}

// linted is what Check read: its summary line counts errors and warnings
// always, "no problems" or not.
type linted struct {
	runbooks int
	empty    []string // folders given that hold no runbooks
	pages    string   // " and the links of N pages", or ""
}

func (linted) Head(io.Writer) {}
func (linted) Tail(io.Writer) {}

func (c linted) Summary(errors, warnings, infos int) string {
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

func (c linted) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Runbooks int `json:"runbooks"`
	}{c.runbooks})
}
