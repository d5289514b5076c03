package main

import (
	"errors"
	"fmt"
	"github.com/k0rdent/kbook/internal/plural"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/run"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/spf13/cobra"
)

type buildFlags struct {
	out           string
	version       string
	title         string
	aliases       []string
	baseURL       string
	noRun         bool
	allowFailures bool
	reports       []string
	noSearch      bool
	allVersions   bool
	hugoTimeout   time.Duration
	run           runFlags
}

func newBuildCmd() *cobra.Command {
	var f buildFlags
	cmd := &cobra.Command{
		Use:   "build [DIR]",
		Short: "Build the versioned docs site of a docs repository",
		Long: `Build the docs site of DIR (default: the current directory): kbook.yaml,
content/ (guides), runbooks/ (executable runbooks) and site/ (layout
overrides of the embedded theme) become one version folder of a static site
in --out, with Hugo ` + site.HugoVersion + ` built into kbook.

Runbooks are run first, as kbook run would (unchanged runbooks come from
the cache); every runbook page then shows the captured output and a
verification badge. With --no-run nothing is executed and pages show cached
results only; with --report the results come from kbook run --json reports.

Versions already in --out stay; --out/versions.json (mike's format), the
alias folders and the root redirect are updated. Search needs Pagefind
(npm package pagefind); without it the site is built without search.

Exit status: 0 the site was written and every runbook passed or was
skipped, 1 a runbook failed (the site is still written, showing the
failure) unless --allow-failures, 2 bad input (broken link, bad front
matter, template error) reported at its file:line, 130 interrupted.`,
		Example: `  # Build the current repository as version next into public/
  kbook build

  # Release v0.2 as the default version, keeping the versions already in public/
  kbook build --version v0.2 --alias latest --base-url https://acme.github.io/docs/

  # Build from the results of an earlier run, executing nothing
  kbook run --json results.json runbooks/ && kbook build --report results.json

  # Every version of kbook.yaml from its git tag or branch, in one Hugo build
  kbook build --all-versions`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBuild(cmd, args, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "public", "output `directory` holding every version of the site")
	fl.StringVar(&f.version, "version", site.NextVersion, "`name` of the version folder to build (next: the unreleased channel)")
	fl.StringVar(&f.title, "title", "", "switcher label of the version (default: its name)")
	fl.StringArrayVar(&f.aliases, "alias", nil, "alias `folder` redirecting to this version, such as latest (repeatable)")
	fl.StringVar(&f.baseURL, "base-url", "", "`URL` the site is published at (default: kbook.yaml's baseURL, else /)")
	fl.BoolVar(&f.noRun, "no-run", false, "execute nothing: show cached results only")
	fl.BoolVar(&f.allowFailures, "allow-failures", false, "exit 0 even when a runbook failed")
	fl.StringArrayVar(&f.reports, "report", nil, "take runbook results from this kbook run --json `file` instead of running (repeatable, merged)")
	fl.BoolVar(&f.noSearch, "no-search", false, "build without the Pagefind search index")
	fl.BoolVar(&f.allVersions, "all-versions", false, "build every version kbook.yaml lists, each from its git ref in a worktree; tagged versions already in --out are kept as they are")
	fl.DurationVar(&f.hugoTimeout, "hugo-timeout", site.DefaultHugoTimeout, "time limit of the Hugo build; a build still running then is stopped (exit 1)")
	f.run.registerRun(cmd)
	return cmd
}

func runBuild(cmd *cobra.Command, args []string, f *buildFlags) error {
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	if err := site.CheckVersionName(f.version); err != nil {
		return usageError(fmt.Errorf("--version: %w", err))
	}
	for _, a := range f.aliases {
		if err := site.CheckVersionName(a); err != nil {
			return usageError(fmt.Errorf("--alias: %w", err))
		}
	}
	proj, err := site.Load(dir)
	if err != nil {
		return usageError(siteError(dir, err))
	}
	if f.allVersions {
		return buildAllVersions(cmd, dir, proj, f)
	}
	v := &site.Version{Name: f.version, Title: f.title, Aliases: f.aliases, Project: proj,
		Lastmod: site.Lastmod(dir, proj.Config.Content, proj.Config.Runbooks)}
	if err := checkProjectLinks(proj, f.out, []*site.Version{v}, ""); err != nil {
		return err
	}
	// The build's work folder is recorded while it exists: the next kbook
	// removes it if this one is killed.
	procs, closeProcs := openProcs(siteLogger{cmd})
	defer closeProcs()
	out := cmd.OutOrStdout()
	if err := checkTemplates(cmd, dir, []*site.Version{v}, f, procs); err != nil {
		return err
	}
	rep, runErr := siteResults(cmd, proj, f.reports, f.noRun, &f.run, procs)
	var ee *exitError
	if runErr != nil && (!errors.As(runErr, &ee) || ee.code != findings.ExitErrors) {
		return runErr
	}
	var search *site.Pagefind
	if !f.noSearch {
		search = site.FindPagefind(dir)
	}
	v.Results = rep
	res, err := site.Build(cmd.Context(), []*site.Version{v}, site.Options{Out: f.out, BaseURL: f.baseURL, Search: search, Logger: siteLogger{cmd}, Dirs: procs, HugoTimeout: f.hugoTimeout})
	if err != nil {
		var se *site.Error
		if errors.As(err, &se) {
			return usageError(siteError(dir, err))
		}
		if cmd.Context().Err() != nil {
			return &exitError{findings.ExitInterrupted, fmt.Errorf("interrupted")}
		}
		return &exitError{findings.ExitErrors, err}
	}
	fmt.Fprintf(out, "kbook build: wrote %s (%s, Hugo %s)\n", filepath.Join(f.out, f.version), plural.Count(res.Pages, "page"), res.Hugo.Round(time.Millisecond))
	fmt.Fprintf(out, "  verification: %s\n", verificationLine(res.Versions[f.version]))
	if res.Search != "" && search != nil && !search.Available() {
		fmt.Fprintf(cmd.ErrOrStderr(), "kbook build: note: %s\n", res.Search)
	} else if res.Search != "" && !strings.HasPrefix(res.Search, "indexed") {
		fmt.Fprintf(cmd.ErrOrStderr(), "kbook build: warning: %s\n", res.Search)
	}
	if runErr != nil && !f.allowFailures {
		return &exitError{findings.ExitErrors, fmt.Errorf("a runbook failed; the site shows the failure (--allow-failures to exit 0)")}
	}
	return nil
}

// checkTemplates renders the versions without results before runbooks
// run, so that a template error (exit 2, file:line) does not wait for
// them; with nothing to run (--no-run, --report, no runbooks) the build
// itself finds it as soon.
func checkTemplates(cmd *cobra.Command, dir string, vs []*site.Version, f *buildFlags, procs *proc.Registry) error {
	runs := false
	for _, v := range vs {
		runs = runs || len(v.Project.Runbooks) > 0
	}
	if !runs || f.noRun || len(f.reports) > 0 {
		return nil
	}
	_, err := site.Build(cmd.Context(), vs, site.Options{Out: f.out, BaseURL: f.baseURL, Dirs: procs, CheckOnly: true, HugoTimeout: f.hugoTimeout})
	var se *site.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return usageError(siteError(dir, err))
	case cmd.Context().Err() != nil:
		return &exitError{findings.ExitInterrupted, fmt.Errorf("interrupted")}
	}
	return &exitError{findings.ExitErrors, err}
}

// siteResults gets the results the site shows: from reports, else from a
// run of the runbooks (cache only with noRun), in process. The run uses
// the project's own kbook.yaml run.crds unless --crds is given, so that
// each version of --all-versions runs with its own. A failed runbook is
// returned as a findings.ExitErrors error beside the report.
func siteResults(cmd *cobra.Command, proj *site.Project, reports []string, noRun bool, rf *runFlags, procs *proc.Registry) (*report.Report, error) {
	if len(reports) > 0 {
		var rs []*report.Report
		for _, file := range reports {
			r, err := report.ReadJSON(file)
			if err != nil {
				return nil, usageError(err)
			}
			rs = append(rs, r)
		}
		return report.Merge(rs...), nil
	}
	if len(proj.Runbooks) == 0 {
		return nil, nil
	}
	o, err := siteRunOptions(cmd, proj, rf, procs)
	if err != nil {
		return nil, usageError(err)
	}
	o.CacheOnly = noRun
	rep, err := run.Run(cmd.Context(), o)
	return rep, runExit(cmd.Context(), rep, err)
}

// siteRunOptions are the options of a run of proj's runbooks that build
// and serve make: rf's flags, the project's run.crds unless --crds is
// given, the registry already open.
func siteRunOptions(cmd *cobra.Command, proj *site.Project, rf *runFlags, procs *proc.Registry) (run.Options, error) {
	o, err := rf.options(cmd, proj.RunbookPaths())
	if err != nil {
		return o, err
	}
	if len(rf.cluster.crds) == 0 {
		o.Cluster.Options.CRDs = run.ProjectCRDs(proj.Dir, proj.Config.Run.CRDs)
	}
	o.OpenProcs = func(cluster.Logger) (*proc.Registry, func()) { return procs, func() {} }
	return o, nil
}

func verificationLine(rows []site.Verification) string {
	if len(rows) == 0 {
		return "no runbooks"
	}
	n := map[string]int{}
	for _, r := range rows {
		n[r.Status]++
	}
	return fmt.Sprintf("%s: %d verified, %d partially verified, %d failed, %d not verified",
		plural.Count(len(rows), "runbook"), n[site.Verified], n[site.Partial], n[site.Failed], n[site.Unverified])
}

type siteLogger struct{ cmd *cobra.Command }

func (l siteLogger) Warn(msg string) { fmt.Fprintf(l.cmd.ErrOrStderr(), "kbook: warning: %s\n", msg) }
func (l siteLogger) Info(msg string) { fmt.Fprintf(l.cmd.ErrOrStderr(), "kbook: %s\n", msg) }
func (l siteLogger) Infof(format string, args ...any) {
	fmt.Fprintf(l.cmd.ErrOrStderr(), format+"\n", args...)
}

// checkProjectLinks fails on broken internal links and anchors, naming
// each at its file:line (exit 2). built are the versions this run builds;
// ref, when set, names the files as git does (v0.1:content/a.md), for a
// version built from a worktree.
func checkProjectLinks(p *site.Project, out string, built []*site.Version, ref string) error {
	fs := site.CheckLinks(p, out, built...)
	for i := range fs {
		if ref != "" {
			fs[i].File = ref + ":" + fs[i].File
		} else {
			fs[i].File = underDir(p.Dir, fs[i].File)
		}
	}
	for _, w := range site.LinkWarnings(fs) {
		fmt.Fprintf(os.Stderr, "kbook: %s\n", w)
	}
	if err := site.LinkError(fs); err != nil {
		return usageError(err)
	}
	return nil
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
		fs[i].File = underDir(root, fs[i].File)
	}
	return fs, " and the links of " + plural.Count(len(p.Pages), "page"), nil
}

// underDir shows a docs-relative file relative to the current directory.
func underDir(dir, file string) string {
	if dir == "" || dir == "." || filepath.IsAbs(file) || strings.HasPrefix(file, "theme ") || strings.HasPrefix(file, "(") {
		return file
	}
	if abs, err := filepath.Abs(dir); err == nil {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, abs); err == nil {
				dir = rel
			}
		}
	}
	return filepath.Join(dir, file)
}

// siteError shows the file of a site or runbook error relative to the
// current directory.
func siteError(dir string, err error) error {
	var re *runbook.Error
	if errors.As(err, &re) {
		re.File = underDir(dir, re.File)
		return re
	}
	return err
}

// buildAllVersions builds kbook.yaml's versions in one Hugo build: next
// from the working tree, others from git worktrees of their refs, tagged
// versions already in --out kept.
func buildAllVersions(cmd *cobra.Command, dir string, proj *site.Project, f *buildFlags) error {
	if f.reports != nil || cmd.Flags().Changed("version") || f.aliases != nil {
		return usageError(fmt.Errorf("--all-versions takes the versions, aliases and refs from kbook.yaml: drop --version, --alias and --report"))
	}
	procs, closeProcs := openProcs(siteLogger{cmd})
	defer closeProcs()
	cos, cleanup, err := site.CheckoutVersions(dir, f.out, proj.Config, procs)
	defer cleanup()
	if err != nil {
		return usageError(siteError(dir, err))
	}
	out := cmd.OutOrStdout()
	// Every version is loaded and its links checked before anything runs:
	// a link into another version of this run is checked against that
	// version's pages.
	var (
		vs   []*site.Version
		refs = map[*site.Version]string{}
	)
	for _, co := range cos {
		if co.Kept {
			fmt.Fprintf(out, "kbook build: %s: kept (tag %s, already built)\n", co.Spec.Name, co.Spec.Ref)
			continue
		}
		p := proj
		if co.Dir != dir {
			if p, err = site.Load(co.Dir); err != nil {
				return usageError(fmt.Errorf("version %s (git ref %s): %w", co.Spec.Name, co.Spec.Ref, err))
			}
		}
		v := &site.Version{Name: co.Spec.Name, Title: co.Spec.Title, Aliases: co.Spec.Aliases, Project: p,
			Lastmod: site.Lastmod(co.Dir, p.Config.Content, p.Config.Runbooks)}
		if co.Dir == dir {
			vs = append([]*site.Version{v}, vs...)
		} else {
			vs = append(vs, v)
			refs[v] = co.Spec.Ref
		}
	}
	for _, v := range vs {
		if err := checkProjectLinks(v.Project, f.out, vs, refs[v]); err != nil {
			return err
		}
	}
	if len(vs) > 0 {
		if err := checkTemplates(cmd, dir, vs, f, procs); err != nil {
			return err
		}
	}
	failed := false
	for _, v := range vs {
		fmt.Fprintf(out, "kbook build: %s: runbooks\n", v.Name)
		rep, runErr := siteResults(cmd, v.Project, nil, f.noRun, &f.run, procs)
		var ee *exitError
		if runErr != nil && (!errors.As(runErr, &ee) || ee.code != findings.ExitErrors) {
			return runErr
		}
		failed = failed || runErr != nil
		v.Results = rep
	}
	if len(vs) == 0 {
		fmt.Fprintln(out, "kbook build: every version is already built")
		return nil
	}
	var search *site.Pagefind
	if !f.noSearch {
		search = site.FindPagefind(dir)
	}
	res, err := site.Build(cmd.Context(), vs, site.Options{Out: f.out, BaseURL: f.baseURL, Search: search, Logger: siteLogger{cmd}, Dirs: procs, HugoTimeout: f.hugoTimeout})
	if err != nil {
		var se *site.Error
		if errors.As(err, &se) {
			return usageError(siteError(dir, err))
		}
		if cmd.Context().Err() != nil {
			return &exitError{findings.ExitInterrupted, fmt.Errorf("interrupted")}
		}
		return &exitError{findings.ExitErrors, err}
	}
	for _, v := range vs {
		fmt.Fprintf(out, "kbook build: wrote %s: %s\n", filepath.Join(f.out, v.Name), verificationLine(res.Versions[v.Name]))
	}
	if failed && !f.allowFailures {
		return &exitError{findings.ExitErrors, fmt.Errorf("a runbook failed; the site shows the failure (--allow-failures to exit 0)")}
	}
	return nil
}
