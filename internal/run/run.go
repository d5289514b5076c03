package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/k0rdent/kbook/internal/cache"
	runtarget "github.com/k0rdent/kbook/internal/cluster/target"
	"github.com/k0rdent/kbook/internal/console"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
	"github.com/k0rdent/kbook/internal/site"
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
	// JSON and JUnit are report files to write ("": none).
	JSON, JUnit string
	KeepWork    bool
	// Env is KEY=VALUE, or KEY for the value in kbook's environment.
	Env     []string
	Verbose bool
	// Progress is auto, tty or plain.
	Progress string
	// Keep keeps each runbook's namespace and objects.
	Keep bool
	// CacheOnly runs nothing: results come from the cache (kbook build
	// --no-run).
	CacheOnly bool
	Cluster   Cluster
	// Out receives progress and the summary.
	Out io.Writer
	// OpenProcs opens the registry of what the run starts (kbook's reaps
	// what earlier processes left first); nil: untracked.
	OpenProcs proc.Opener
}

// Run runs the runbooks of o.Paths and returns the report. Bad input (a
// flag, a runbook that does not parse, a cluster that can never work) is
// a findings.InputError returned before anything runs; a report that
// cannot be written is another error beside the report. Failed and
// interrupted runs are in the report (Summary().Failed, Interrupted).
func Run(ctx context.Context, o Options) (*report.Report, error) {
	if len(o.Paths) == 0 {
		o.Paths = []string{"runbooks"}
	}
	chk, err := check(ctx, &o)
	if err != nil {
		return nil, input(err)
	}
	// An MkDocs project given as a folder runs the pages of its docs_dir
	// that hold steps.
	paths, err := site.ExpandRunbookPaths(o.Paths)
	if err != nil {
		return nil, input(err)
	}
	var shell runbook.ShellPages
	if root := site.FindRoot(o.Paths); root != "" {
		cfg, err := site.LoadConfig(root)
		if err != nil {
			return nil, input(fmt.Errorf("%s: %w", root, err))
		}
		shell = shellPages(root, cfg.Run)
	}
	rbs, err := runbook.LoadShell(paths, shell)
	if err != nil {
		return nil, input(err)
	}
	if err := chk.filter.Check(rbs); err != nil {
		return nil, input(err)
	}
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	printer := console.New(out, chk.tty, o.Verbose)
	procs, closeProcs := o.OpenProcs.Open(printer)
	defer closeProcs()
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
		KeepWork:  o.KeepWork,
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
			return nil, input(err)
		}
		if target != nil {
			opts.Target, opts.Backend = target, target.Backend()
			defer func() {
				ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
				defer cancel()
				if err := target.Close(ctx); err != nil {
					printer.Warn(err.Error())
				}
			}()
		}
	}
	r, err := runner.New(opts)
	if err != nil {
		return nil, input(err)
	}
	if err := r.Validate(rbs); err != nil {
		return nil, input(err)
	}
	rep := r.Run(ctx, rbs)

	fmt.Fprint(out, console.Summary(rep))
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		rep.GitHubAnnotations(out)
	}
	if o.JSON != "" {
		if err := rep.WriteJSON(o.JSON); err != nil {
			return rep, err
		}
	}
	if o.JUnit != "" {
		if err := rep.WriteJUnit(o.JUnit); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// input marks bad input.
func input(err error) error {
	if findings.IsInput(err) {
		return err
	}
	return &findings.InputError{Err: err}
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

// shellPages is kbook.yaml's run.pages of the docs repository at root:
// the pages it lists run their shell blocks.
func shellPages(root string, cfg site.RunConfig) runbook.ShellPages {
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
