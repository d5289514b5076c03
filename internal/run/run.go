package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster"
	runtarget "github.com/k0rdent/kbook/internal/cluster/target"
	"github.com/k0rdent/kbook/internal/console"
	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/mkdocs"
	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/overlay"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
	"github.com/k0rdent/kbook/internal/version"
)

// Options are a run's settings, as kbook run's flags give them.
type Options struct {
	// Paths are the runbook files and folders (default: runbooks).
	Paths []string
	// Parallel is the number of runbooks run at once (0: the CPUs).
	Parallel int
	// Run selects runbooks and steps: RUNBOOK[/STEP] regular expressions.
	Run      string
	Update   bool
	FailFast bool
	// Shard is K/N; Timings a JSON report whose durations balance shards.
	Shard   string
	Timings string
	NoCache bool
	// CacheDir is the cache folder (default: cache.DefaultDir); when
	// CacheDirSet, one that cannot be opened is bad input rather than a
	// warning.
	CacheDir    string
	CacheDirSet bool
	// Timeout is the time limit per runbook.
	Timeout time.Duration
	// JSON and JUnit are report files to write ("": none; report.Stdout,
	// "-": to Stdout).
	JSON, JUnit string
	KeepWork    bool
	// Env is KEY=VALUE, or KEY for the value in kbook's environment.
	Env     []string
	Verbose bool
	// Progress is auto, tty or plain.
	Progress string
	// Keep keeps each runbook's namespace and objects.
	Keep bool
	// Offline skips the shell blocks that download, saying so.
	Offline bool
	// Overlays are overlay files applied to the pages' shell blocks,
	// after the docs root's kbook.overlay.yaml.
	Overlays []string
	// CacheOnly runs nothing: results come from the cache (kbook build
	// --no-run).
	CacheOnly bool
	Cluster   Cluster
	// Out receives progress and the summary, and a report named
	// report.Stdout; when there is one, progress and the summary go to
	// ErrOut instead (kbook run --json - | jq).
	log.IOStreams
	// OpenProcs opens the registry of what the run starts (kbook's reaps
	// what earlier processes left first); nil: untracked.
	OpenProcs proc.Opener
}

// progress is where o's progress and summary go: Out, or ErrOut when a
// report has Out to itself.
func (o *Options) progress() io.Writer {
	s := o.OrDiscard()
	if o.JSON == report.Stdout || o.JUnit == report.Stdout {
		return s.ErrOut
	}
	return s.Out
}

// Run runs the runbooks of o.Paths and returns the report. Bad input (a
// flag, a runbook that does not parse, a cluster that can never work) is
// a findings.InputError returned before anything runs; a report that
// cannot be written is another error beside the report. Failed and
// interrupted runs are in the report (Summary().Failed, Interrupted).
func Run(ctx context.Context, o Options) (*report.Report, error) {
	if len(o.Paths) == 0 {
		paths, err := DefaultPaths()
		if err != nil {
			return nil, findings.Input(err)
		}
		o.Paths = paths
	}
	docs, err := readDocs(o.Paths)
	if err != nil {
		return nil, err
	}
	if docs.cfg != nil {
		o.Cluster.Options.CRDs = projectCRDs(o.Cluster, docs.root, docs.cfg.CRDs)
	}
	chk, err := check(ctx, &o)
	if err != nil {
		return nil, findings.Input(err)
	}
	rbs, err := docs.load(o.Paths, o.Overlays)
	if err != nil {
		return nil, err
	}
	if err := chk.filter.Check(rbs); err != nil {
		return nil, findings.Input(err)
	}
	out := o.progress()
	printer := console.New(out, chk.tty, o.Verbose)
	procs, closeProcs := o.OpenProcs.Open(printer)
	// The cluster is stopped and the registry closed before the summary,
	// so that the summary is the run's last word (cleanup's lines
	// printed after it would bury it, after Ctrl-C too); on an early
	// return, by the deferred call.
	var closeTarget func()
	cleanup := sync.OnceFunc(func() {
		if closeTarget != nil {
			closeTarget()
		}
		closeProcs()
	})
	defer cleanup()
	opts := runner.Options{
		Parallel:  o.Parallel,
		Filter:    chk.filter,
		FailFast:  o.FailFast,
		Update:    o.Update,
		Shard:     chk.shard,
		Timings:   chk.timings,
		Timeout:   o.Timeout,
		Version:   version.String(),
		Host:      host(),
		Observer:  printer,
		Env:       o.Env,
		CacheDir:  o.CacheDir,
		KeepWork:  o.KeepWork,
		Offline:   o.Offline,
		CacheOnly: o.CacheOnly,
		Dirs:      procs,
		Cmds:      kubecmd.Commands(),
	}
	opts.NeedsTarget = runtarget.Needs
	if !o.NoCache {
		c := chk.cache
		if c == nil {
			if c, err = cache.Open(o.CacheDir); err != nil {
				printer.Warn(fmt.Sprintf("cache disabled: %v", err))
			}
		}
		if c != nil {
			id, err := cache.BinaryID()
			if err != nil {
				printer.Warn(fmt.Sprintf("cache disabled: %v", err))
			} else {
				opts.Cache, opts.KbookID = c, id
			}
		}
	}
	if anyNeedsCluster(rbs) {
		target, err := chk.cluster.target(ctx, &o, printer, procs)
		if err != nil {
			return nil, findings.Input(err)
		}
		if target != nil {
			opts.Target, opts.Backend = target, target.Backend()
			closeTarget = func() {
				ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
				defer cancel()
				if err := target.Close(ctx); err != nil {
					printer.Warn(err.Error())
				}
			}
		}
	}
	r, err := runner.New(opts)
	if err != nil {
		return nil, findings.Input(err)
	}
	if err := r.Validate(rbs); err != nil {
		return nil, findings.Input(err)
	}
	rep := r.Run(ctx, rbs)
	cleanup()

	fmt.Fprint(out, console.Summary(rep, output.Colors(out)))
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		rep.GitHubAnnotations(out)
	}
	stdout := o.OrDiscard().Out
	if o.JSON != "" {
		if err := rep.WriteJSON(o.JSON, stdout); err != nil {
			return rep, err
		}
	}
	if o.JUnit != "" {
		if err := rep.WriteJUnit(o.JUnit, stdout); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func anyNeedsCluster(rbs []*runbook.Runbook) bool {
	for _, rb := range rbs {
		if runtarget.Needs(rb) {
			return true
		}
	}
	return false
}

// host describes where the run happens, for the report and the site.
func host() string {
	h := runtime.GOOS + "/" + runtime.GOARCH
	switch {
	case os.Getenv("GITHUB_ACTIONS") == "true":
		h += ", GitHub Actions"
	case os.Getenv("GITLAB_CI") == "true":
		h += ", GitLab CI"
	case os.Getenv("CI") != "":
		h += ", CI"
	}
	return h
}

// docs is the docs repository a run's paths belong to, its kbook.yaml
// read as kbook check and build read it: run.pages, run.crds and
// run.overlay.
type docs struct {
	root   string
	cfg    *docsrepo.RunConfig // nil without a docs repository
	shell  runbook.ShellPages
	macros runbook.Macros
}

func readDocs(paths []string) (docs, error) {
	d := docs{root: docsrepo.FindRoot(paths)}
	if d.root == "" {
		return d, nil
	}
	cfg, err := docsrepo.LoadConfig(d.root)
	if err != nil {
		return d, findings.Input(docsrepo.ErrorUnder(d.root, err))
	}
	d.cfg = &cfg.Run
	d.shell = ShellPages(d.root, cfg.Run)
	if d.macros, err = PageMacros(d.root, cfg.Variables); err != nil {
		return d, findings.Input(docsrepo.ErrorUnder(d.root, err))
	}
	return d, nil
}

// load reads the runbooks of paths (an MkDocs project given as a folder:
// the pages of its docs_dir that hold steps) and applies the overlays;
// bad input, a shell block that is to run and does not parse included, is
// a findings.InputError at its line.
func (d docs) load(paths, overlays []string) ([]*runbook.Runbook, error) {
	paths, err := docsrepo.ExpandRunbookPaths(paths)
	if err != nil {
		return nil, findings.Input(err)
	}
	ovs, err := LoadOverlays(d.root, d.cfg, overlays)
	if err != nil {
		return nil, findings.Input(err)
	}
	rbs, err := runbook.LoadShell(paths, OverlayPages(d.root, d.shell, ovs), d.macros)
	if err != nil {
		return nil, findings.Input(err)
	}
	if err := ApplyOverlays(d.root, ovs, rbs); err != nil {
		return nil, findings.Input(err)
	}
	return rbs, nil
}

// Load reads the runbooks of paths as Run does before it runs anything:
// the docs repository's kbook.yaml, its pages that run their shell
// blocks, the overlays (kbook.yaml's, kbook.overlay.yaml, then overlays)
// and each shell block's bash syntax. Bad input is a findings.InputError
// at its line. kbook build calls it before any work, whether its results
// come from a run or from --report files.
func Load(paths, overlays []string) ([]*runbook.Runbook, error) {
	d, err := readDocs(paths)
	if err != nil {
		return nil, err
	}
	return d.load(paths, overlays)
}

// ShellPages is kbook.yaml's run.pages of the docs repository at root:
// the pages it lists run their shell blocks.
func ShellPages(root string, cfg docsrepo.RunConfig) runbook.ShellPages {
	if len(cfg.Pages) == 0 {
		return nil
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil
	}
	return func(p string) string {
		abs, err := filepath.Abs(p)
		if err != nil {
			return ""
		}
		rel, err := filepath.Rel(absRoot, abs)
		if err != nil || !cfg.ShellPage(filepath.ToSlash(rel)) {
			return ""
		}
		return "kbook.yaml run.pages"
	}
}

// DefaultPaths are the runbooks kbook run and kbook check take when given
// no path, read from the current directory as kbook build reads it: the
// runbooks folder its kbook.yaml names (default runbooks), or the
// current directory when it holds an MkDocs project (its runbook pages).
// A kbook.yaml that does not load is an error at its line.
func DefaultPaths() ([]string, error) {
	if mkdocs.Find(".") != "" {
		return []string{"."}, nil
	}
	if _, err := os.Stat(docsrepo.ConfigFile); err != nil {
		return []string{"runbooks"}, nil
	}
	cfg, err := docsrepo.LoadConfig(".")
	if err != nil {
		return nil, err
	}
	return []string{cfg.Runbooks}, nil
}

// projectCRDs are the CRDs a run of a docs project's runbooks installs:
// those given (--crds), else the project's kbook.yaml run.crds (relative
// to root) that exist - on a cluster kbook starts or reuses, never one
// --kubeconfig names (kbook installs nothing there unasked), and not with
// --k0rdent, whose plane brings the release's own CRDs.
func projectCRDs(c Cluster, root string, crds []string) []string {
	o := c.Options
	if len(o.CRDs) > 0 || c.None || o.K0rdent != "" || o.Backend == cluster.Kubeconfig {
		return o.CRDs
	}
	return ProjectCRDs(root, crds)
}

// ProjectCRDs returns the CRD paths of a docs project's kbook.yaml run.crds
// (relative to dir) that exist, for a run of that project's runbooks.
func ProjectCRDs(dir string, crds []string) []string {
	var ps []string
	for _, c := range crds {
		p := filepath.Join(dir, c)
		if _, err := os.Stat(p); err == nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// LoadOverlays reads the overlays of a run of the docs repository at
// root, in the order they apply: kbook.yaml's run.overlay (cfg, nil
// without a kbook.yaml), the root's kbook.overlay.yaml when there is one,
// then files (--overlay). A bad overlay is bad input at its line. kbook
// run and kbook check both read the overlays through it, before the
// pages: an overlay's pages opt pages in.
func LoadOverlays(root string, cfg *docsrepo.RunConfig, files []string) ([]*overlay.Overlay, error) {
	var ovs []*overlay.Overlay
	if cfg != nil {
		ov, err := cfg.OverlayRules(root)
		if err != nil {
			return nil, err
		}
		if ov != nil {
			ovs = append(ovs, ov)
		}
	}
	if root != "" {
		if p := filepath.Join(root, overlay.File); fileExists(p) {
			files = append([]string{p}, files...)
		}
	}
	for _, f := range files {
		ov, err := overlay.Load(f)
		if err != nil {
			return nil, err
		}
		ovs = append(ovs, ov)
	}
	return ovs, nil
}

// OverlayPages is shell (kbook.yaml's run.pages), and the pages the
// overlays list (their pages:, relative to the docs root, else the
// current folder).
func OverlayPages(root string, shell runbook.ShellPages, ovs []*overlay.Overlay) runbook.ShellPages {
	var listed []*overlay.Overlay
	for _, ov := range ovs {
		if len(ov.Pages) > 0 {
			listed = append(listed, ov)
		}
	}
	if len(listed) == 0 {
		return shell
	}
	if root == "" {
		root = "."
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return shell
	}
	return func(p string) string {
		if shell != nil {
			if why := shell(p); why != "" {
				return why
			}
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return ""
		}
		rel, err := filepath.Rel(absRoot, abs)
		if err != nil {
			return ""
		}
		for _, ov := range listed {
			if ov.ShellPage(filepath.ToSlash(rel)) {
				return ov.File + " pages"
			}
		}
		return ""
	}
}

// ApplyOverlays applies the overlays of a run (LoadOverlays) to the
// pages' shell blocks, in order. Page globs are relative to the docs root
// (else the current folder). A rule that matches nothing is bad input at
// its line; so is then a shell block that is to run and does not parse
// as bash.
func ApplyOverlays(root string, ovs []*overlay.Overlay, rbs []*runbook.Runbook) error {
	for _, ov := range ovs {
		if err := ov.Apply(rbs, root); err != nil {
			return err
		}
	}
	// Only now is a block's syntax error an error: a rule may have
	// skipped the block, provided it or given it a stand-in.
	for _, rb := range rbs {
		if err := rb.ShellSyntax(); err != nil {
			return err
		}
	}
	return nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}
