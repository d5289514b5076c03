package sitebuild

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/log"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/plural"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/run"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/k0rdent/kbook/internal/sitetools"
)

// ErrRunbookFailed is returned by a build whose site was written showing
// a failed runbook (unless AllowFailures).
var ErrRunbookFailed = errors.New("a runbook failed; the site shows the failure (--allow-failures to exit 0)")

// Options are a build's settings, as kbook build's flags give them.
type Options struct {
	// Dir is the docs repository (default ".").
	Dir string
	// OutDir holds every version of the site (default "public").
	OutDir string
	// Version, Title and Aliases name the version built; VersionSet says
	// --version was given (refused with AllVersions).
	Version    string
	Title      string
	Aliases    []string
	VersionSet bool
	BaseURL    string
	// NoRun shows cached results only; Reports takes the results from
	// kbook run --json reports instead of running.
	NoRun         bool
	Reports       []string
	AllowFailures bool
	NoSearch      bool
	// SiteTools chooses where Pagefind, mermaid and the icon sets come
	// from (--site-tools; the zero value is auto).
	SiteTools sitetools.Mode
	// AllVersions builds every version kbook.yaml lists from its git ref.
	AllVersions bool
	HugoTimeout time.Duration
	// Run are the options of each version's runbook run; its paths and
	// (unless CRDsGiven) CRDs are the project's (run.ForProject).
	Run       run.Options
	CRDsGiven bool
	// OpenProcs opens the registry that records the build's work folders
	// and servers while they exist, so that the next kbook removes them if
	// this one is killed (nil: untracked).
	OpenProcs proc.Opener
	procs     *proc.Registry
	// Logger receives the build's warnings, notes and progress.
	Logger log.Logger
	// Out receives what was written.
	log.IOStreams
}

// Build builds the site. Bad input (a version name, broken links, a
// template error, an unreadable report) is a findings.InputError before
// anything runs; an interrupted build returns the context's cause; a site
// written with a failed runbook returns ErrRunbookFailed.
func Build(ctx context.Context, o Options) error {
	o.Logger = log.Or(o.Logger)
	procs, closeProcs := o.OpenProcs.Open(o.Logger)
	defer closeProcs()
	o.procs = procs
	o.Dir, o.OutDir, o.IOStreams = cmp.Or(o.Dir, "."), cmp.Or(o.OutDir, "public"), o.OrDiscard()
	if err := CheckVersion(o.Version); err != nil {
		return err
	}
	for _, a := range o.Aliases {
		if err := docsrepo.CheckVersionName(a); err != nil {
			return findings.Input(fmt.Errorf("--alias: %w", err))
		}
	}
	tools, err := o.SiteTools.Resolve()
	if err != nil {
		return findings.Input(err)
	}
	o.SiteTools = tools
	proj, err := site.Load(o.Dir, site.WithSiteTools(o.SiteTools))
	if err != nil {
		return findings.Input(docsrepo.ErrorUnder(o.Dir, err))
	}
	if len(proj.Runbooks) > 0 {
		// The runbooks read as kbook run reads them, overlays applied
		// and each shell block's syntax checked, before any work:
		// --report takes the results from files and runs nothing that
		// would check them later.
		if _, err := run.Load(proj.RunbookPaths(), o.Run.Overlays); err != nil {
			return err
		}
	}
	if site.NeedsIcons(proj) && site.FetchIcons(ctx, o.SiteTools, o.Logger) {
		// The pages use the emoji extension's icons: fetched once into
		// kbook's cache, as mermaid is, and the pages translated again.
		if proj, err = site.Load(o.Dir, site.WithSiteTools(o.SiteTools)); err != nil {
			return findings.Input(docsrepo.ErrorUnder(o.Dir, err))
		}
	}
	if o.AllVersions {
		return buildAll(ctx, proj, o)
	}
	v := &site.Version{Name: o.Version, Title: o.Title, Aliases: o.Aliases, Project: proj,
		Lastmod: site.Lastmod(o.Dir, proj.Config.Content, proj.Config.Runbooks)}
	if err := CheckLinks(proj, o.OutDir, []*site.Version{v}, "", o.Logger); err != nil {
		return err
	}
	if err := checkTemplates(ctx, []*site.Version{v}, o); err != nil {
		return err
	}
	rep, failed, err := Results(ctx, proj, o.Reports, o.NoRun, o)
	if err != nil {
		return err
	}
	v.Results = rep
	res, search, err := write(ctx, []*site.Version{v}, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "kbook build: wrote %s (%s, Hugo %s)\n", filepath.Join(o.OutDir, o.Version), plural.Count(res.Pages, "page"), res.Hugo.Round(time.Millisecond))
	fmt.Fprintf(o.Out, "  verification: %s\n", VerificationLine(res.Versions[o.Version]))
	if res.Search != "" && search != nil && !search.Available() {
		o.Logger.Infof("kbook build: note: %s", res.Search)
	} else if res.Search != "" && !strings.HasPrefix(res.Search, "indexed") {
		log.Warnf(o.Logger, "%s", res.Search)
	}
	if failed && !o.AllowFailures {
		return ErrRunbookFailed
	}
	return nil
}

// buildAll builds kbook.yaml's versions in one Hugo build: next from the
// working tree, others from git worktrees of their refs, tagged versions
// already in OutDir kept.
func buildAll(ctx context.Context, proj *site.Project, o Options) error {
	if o.Reports != nil || o.VersionSet || o.Aliases != nil {
		return findings.Input(errors.New("--all-versions takes the versions, aliases and refs from kbook.yaml: drop --version, --alias and --report"))
	}
	cos, cleanup, err := site.CheckoutVersions(o.Dir, o.OutDir, proj.Config, o.procs)
	defer cleanup()
	if err != nil {
		return findings.Input(docsrepo.ErrorUnder(o.Dir, err))
	}
	// Every version is loaded and its links checked before anything runs:
	// a link into another version of this run is checked against that
	// version's pages.
	var (
		vs   []*site.Version
		refs = map[*site.Version]string{}
	)
	for _, co := range cos {
		if co.Kept {
			fmt.Fprintf(o.Out, "kbook build: %s: kept (tag %s, already built)\n", co.Spec.Name, co.Spec.Ref)
			continue
		}
		p := proj
		if co.Dir != o.Dir {
			if p, err = site.Load(co.Dir, site.WithSiteTools(o.SiteTools)); err != nil {
				return findings.Input(fmt.Errorf("version %s (git ref %s): %w", co.Spec.Name, co.Spec.Ref, err))
			}
		}
		v := &site.Version{Name: co.Spec.Name, Title: co.Spec.Title, Aliases: co.Spec.Aliases, Project: p,
			Lastmod: site.Lastmod(co.Dir, p.Config.Content, p.Config.Runbooks)}
		if co.Dir == o.Dir {
			vs = append([]*site.Version{v}, vs...)
		} else {
			vs = append(vs, v)
			refs[v] = co.Spec.Ref
		}
	}
	for _, v := range vs {
		if err := CheckLinks(v.Project, o.OutDir, vs, refs[v], o.Logger); err != nil {
			return err
		}
	}
	if len(vs) == 0 {
		fmt.Fprintln(o.Out, "kbook build: every version is already built")
		return nil
	}
	if err := checkTemplates(ctx, vs, o); err != nil {
		return err
	}
	failed := false
	for _, v := range vs {
		fmt.Fprintf(o.Out, "kbook build: %s: runbooks\n", v.Name)
		rep, f, err := Results(ctx, v.Project, nil, o.NoRun, o)
		if err != nil {
			return err
		}
		failed = failed || f
		v.Results = rep
	}
	res, _, err := write(ctx, vs, o)
	if err != nil {
		return err
	}
	for _, v := range vs {
		fmt.Fprintf(o.Out, "kbook build: wrote %s: %s\n", filepath.Join(o.OutDir, v.Name), VerificationLine(res.Versions[v.Name]))
	}
	if failed && !o.AllowFailures {
		return ErrRunbookFailed
	}
	return nil
}

// write builds the versions with Hugo into OutDir.
func write(ctx context.Context, vs []*site.Version, o Options) (*site.Result, *site.Pagefind, error) {
	var search *site.Pagefind
	if !o.NoSearch {
		search = site.LocatePagefind(ctx, o.Dir, o.SiteTools, o.Logger)
	}
	res, err := site.Render(ctx, vs, site.Options{Out: o.OutDir, BaseURL: o.BaseURL, Search: search, Logger: o.Logger, Dirs: o.procs, HugoTimeout: o.HugoTimeout, Tools: o.SiteTools})
	return res, search, buildError(ctx, o.Dir, err)
}

// checkTemplates renders the versions without results before runbooks
// run, so that a template error (bad input, file:line) does not wait for
// them; with nothing to run (NoRun, Reports, no runbooks) the build
// itself finds it as soon.
func checkTemplates(ctx context.Context, vs []*site.Version, o Options) error {
	runs := false
	for _, v := range vs {
		runs = runs || len(v.Project.Runbooks) > 0
	}
	if !runs || o.NoRun || len(o.Reports) > 0 {
		return nil
	}
	_, err := site.Render(ctx, vs, site.Options{Out: o.OutDir, BaseURL: o.BaseURL, Dirs: o.procs, CheckOnly: true, HugoTimeout: o.HugoTimeout})
	return buildError(ctx, o.Dir, err)
}

// buildError classifies an error of site.Render: a located error (template,
// front matter) is bad input; an interrupted build is the context's cause.
func buildError(ctx context.Context, dir string, err error) error {
	switch {
	case err == nil:
		return nil
	case findings.IsInput(err):
		return findings.Input(docsrepo.ErrorUnder(dir, err))
	case ctx.Err() != nil:
		return interrupted(ctx)
	}
	return err
}

// Results gets the results the site of proj shows: from reports, else
// from a run of its runbooks in process (cache only with noRun); failed
// says a runbook failed.
func Results(ctx context.Context, proj *site.Project, reports []string, noRun bool, o Options) (rep *report.Report, failed bool, err error) {
	if len(reports) > 0 {
		rep, err := report.MergeFiles(reports...)
		if err != nil {
			return nil, false, findings.Input(err)
		}
		return rep, false, nil
	}
	if len(proj.Runbooks) == 0 {
		return nil, false, nil
	}
	ro := run.ForProject(o.Run, proj.Dir, proj.Config.Run.CRDs, proj.RunbookPaths(), o.CRDsGiven, o.procs)
	ro.CacheOnly = noRun
	return run.ForSite(ctx, ro)
}

// CheckLinks fails on broken internal links and anchors of p, naming each
// at its file:line (bad input); warnings go to log. built are the versions
// this run builds; ref, when set, names the files as git does
// (v0.1:content/a.md), for a version built from a worktree.
func CheckLinks(p *site.Project, out string, built []*site.Version, ref string, log log.Logger) error {
	fs := site.CheckLinks(p, out, built...)
	for i := range fs {
		if ref != "" {
			fs[i].File = ref + ":" + fs[i].File
		} else {
			fs[i].File = docsrepo.UnderDir(p.Dir, fs[i].File)
		}
	}
	if log != nil {
		for _, w := range site.LinkWarnings(fs) {
			log.Infof("%s", w)
		}
	}
	if err := site.LinkError(fs); err != nil {
		return findings.Input(err)
	}
	return nil
}

// VerificationLine sums up the verification of a version's runbooks.
func VerificationLine(rows []site.Verification) string {
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

// CheckVersion checks the name of the version kbook build or serve
// shows (--version): a bad one is a findings.InputError.
func CheckVersion(version string) error {
	if err := docsrepo.CheckVersionName(version); err != nil {
		return findings.Input(fmt.Errorf("--version: %w", err))
	}
	return nil
}

// interrupted is the error of an interrupted build: the context's cause.
func interrupted(ctx context.Context) error {
	if c := context.Cause(ctx); c != nil {
		return c
	}
	return context.Canceled
}
