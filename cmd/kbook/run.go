package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster"
	runtarget "github.com/k0rdent/kbook/internal/cluster/target"
	"github.com/k0rdent/kbook/internal/console"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
	"github.com/k0rdent/kbook/internal/version"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type runFlags struct {
	parallel int
	run      string
	update   bool
	failFast bool
	shard    string
	timings  string
	noCache  bool
	cacheDir string
	timeout  time.Duration
	junit    string
	json     string
	keepWork bool
	env      []string
	verbose  bool
	progress string
	keep     bool
	reuse    bool
	cluster  clusterFlags
	// cacheOnly runs nothing (kbook build --no-run).
	cacheOnly bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [PATH...]",
		Short: "Run executable runbooks",
		Long: `Run the runbooks found in PATH (files or directories; default: runbooks).

A runbook is a Markdown file whose ` + "```testscript" + ` blocks are its steps, or a
plain testscript .txtar file. All steps of a runbook run in order as one
testscript run; independent runbooks run in parallel.

A runbook that passed before and whose source, inputs, kbook binary and
backend are unchanged is not run again: its result comes from the cache
(` + "`--no-cache`" + ` to force a run).

Scripts see only the variables kbook sets and those passed with --env:
none of the shell's.

Exit status: 0 all passed or skipped, 1 a runbook failed, 2 bad input,
130 interrupted, 141 output closed (kbook run | head); whatever kbook
started is stopped in every case.`,
		Example: `  # Run all runbooks, four at a time
  kbook run -p 4 runbooks/

  # Run the steps named "apply.*" of runbooks whose file name starts with "template"
  kbook run -run 'template/apply' runbooks/

  # Refresh the expected-output blocks from the actual output
  kbook run --update runbooks/first-runbook.md

  # One shard of four in a CI matrix, with reports for the merge job
  kbook run --shard 2/4 --json shard-2.json --junit shard-2.xml runbooks/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(cmd, args, &f)
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&f.parallel, "parallel", "p", 0, "number of runbooks to run at once (default: the number of CPUs)")
	fl.StringVar(&f.run, "run", "", "run only runbooks (and steps) matching `RUNBOOK[/STEP]` regular expressions")
	fl.BoolVarP(&f.update, "update", "u", false, "rewrite expected-output blocks (compared with cmp) with the actual output")
	fl.BoolVar(&f.failFast, "fail-fast", false, "start no more runbooks after the first failure")
	fl.StringVar(&f.shard, "shard", "", "run only shard `K/N` of the runbooks, balanced by recorded durations")
	fl.StringVar(&f.timings, "timings", "", "balance shards with the durations in this JSON `report` (default: the cache's)")
	fl.BoolVar(&f.noCache, "no-cache", false, "run every runbook, even if an identical run passed before")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "cache `directory` (default: $"+cache.EnvDir+", else kbook/ in the user cache directory)")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Minute, "time limit per runbook, unless its front matter sets timeout")
	fl.StringVar(&f.junit, "junit", "", "write a JUnit XML report to `FILE`")
	fl.StringVar(&f.json, "json", "", "write the JSON report to `FILE`")
	fl.BoolVar(&f.keepWork, "keep-work", false, "keep each runbook's $WORK directory and print where it is")
	fl.StringArrayVar(&f.env, "env", nil, "set `KEY=VALUE` in every script's environment; KEY alone passes kbook's own value of KEY (scripts inherit no other host variable; repeatable)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "print every command and its output")
	fl.StringVar(&f.progress, "progress", "auto", "progress display: auto, tty or plain")
	fl.BoolVar(&f.keep, "keep", false, "keep each runbook's namespace and the objects it created")
	fl.BoolVar(&f.reuse, "reuse", false, "run against the cluster started with kbook cluster up (see --name)")
	fl.StringVar(&f.cluster.name, "name", "", "with --reuse: the kbook cluster up `name` (default \"default\"); with --cluster kind: the kind cluster name (default \"kbook\")")
	f.cluster.register(cmd, true)
	return cmd
}

// checkedRun is what runFlags.check made of the flags.
type checkedRun struct {
	filter  runner.Filter
	shard   runner.Shard
	timings map[string]time.Duration
	tty     bool
	cache   *cache.Cache
	cluster *runCluster
}

// check checks every flag before anything runs, so that bad input is one
// line and exit status 2 whatever the runbooks need: a --cluster, --crds or
// --kubeconfig that can never work fails even when no runbook needs a
// cluster, and a report that cannot be written fails before the run, not
// after it.
func (f *runFlags) check(cmd *cobra.Command) (*checkedRun, error) {
	c := &checkedRun{}
	var err error
	if c.filter, err = runner.ParseFilter(f.run); err != nil {
		return nil, err
	}
	if f.shard != "" {
		if c.shard, err = runner.ParseShard(f.shard); err != nil {
			return nil, err
		}
	}
	// --env KEY passes kbook's own value of KEY, as docker run -e does:
	// scripts inherit no variable of kbook's environment otherwise.
	for i, kv := range f.env {
		k, _, ok := strings.Cut(kv, "=")
		if k == "" || strings.ContainsAny(k, " \t") {
			return nil, fmt.Errorf("--env %q: want KEY=VALUE or KEY", kv)
		}
		if !ok {
			v, set := os.LookupEnv(k)
			if !set {
				return nil, fmt.Errorf("--env %s: %s is not set in kbook's environment (give a value with --env %s=VALUE)", k, k, k)
			}
			f.env[i] = k + "=" + v
		}
	}
	if f.parallel < 0 {
		return nil, fmt.Errorf("--parallel %d: want at least 1", f.parallel)
	}
	if f.parallel == 0 {
		f.parallel = runtime.NumCPU()
	}
	if f.timeout <= 0 {
		return nil, fmt.Errorf("--timeout %s: want a positive time limit such as 90s or 10m", f.timeout)
	}
	switch f.progress {
	case "auto":
		c.tty = os.Getenv("CI") == "" && term.IsTerminal(int(os.Stdout.Fd()))
	case "tty":
		c.tty = true
	case "plain":
	default:
		return nil, fmt.Errorf("--progress %q: want auto, tty or plain", f.progress)
	}
	if f.timings != "" {
		rep, err := report.ReadJSON(f.timings)
		if err != nil {
			return nil, fmt.Errorf("--timings: %w", err)
		}
		c.timings = map[string]time.Duration{}
		for _, rb := range rep.Runbooks {
			c.timings[rb.Path] = rb.Duration
		}
	}
	if err := checkReports(f.json, f.junit); err != nil {
		return nil, err
	}
	if f.cacheDir == "" {
		f.cacheDir = cache.DefaultDir()
	}
	if !f.noCache && cmd.Flags().Changed("cache-dir") {
		if c.cache, err = cache.Open(f.cacheDir); err != nil {
			return nil, fmt.Errorf("--cache-dir: %w", err)
		}
	}
	if c.cluster, err = f.checkCluster(cmd); err != nil {
		return nil, err
	}
	return c, nil
}

// checkReports checks that the --json and --junit files can be written:
// different files, in directories that exist and take new files.
func checkReports(json, junit string) error {
	if json != "" && junit != "" {
		a, errA := filepath.Abs(json)
		b, errB := filepath.Abs(junit)
		if errA == nil && errB == nil && a == b {
			return fmt.Errorf("--json and --junit both name %s: one report would overwrite the other", json)
		}
	}
	for _, r := range []struct{ flag, path string }{{"--json", json}, {"--junit", junit}} {
		if r.path == "" {
			continue
		}
		if fi, err := os.Stat(r.path); err == nil && fi.IsDir() {
			return fmt.Errorf("%s %s: is a directory", r.flag, r.path)
		}
		dir := filepath.Dir(r.path)
		fi, err := os.Stat(dir)
		switch {
		case err != nil:
			return fmt.Errorf("%s %s: directory %s does not exist", r.flag, r.path, dir)
		case !fi.IsDir():
			return fmt.Errorf("%s %s: %s is not a directory", r.flag, r.path, dir)
		}
		probe, err := os.CreateTemp(dir, ".kbook-report-*")
		if err != nil {
			return fmt.Errorf("%s %s: cannot write in %s: %v", r.flag, r.path, dir, errors.Unwrap(err))
		}
		probe.Close()
		os.Remove(probe.Name())
	}
	return nil
}

// runCluster is the cluster a run will use, checked up front; the target
// is made only if a runbook needs it.
type runCluster struct {
	none     bool
	opts     cluster.Options
	reused   cluster.Cluster
	reusedAs string
}

// checkCluster checks the cluster flags: the backend exists, the CRD
// paths do, the kubeconfig loads, the --reuse cluster answers; flags that
// --cluster none would ignore are an error.
func (f *runFlags) checkCluster(cmd *cobra.Command) (*runCluster, error) {
	fl := cmd.Flags()
	if f.cluster.backend == "none" {
		for _, name := range []string{"crds", "kubeconfig", "context", "kind-image", "keep-cluster", "reuse", "keep", "name"} {
			if fl.Changed(name) {
				return nil, fmt.Errorf("--%s: --cluster none starts no cluster and uses none", name)
			}
		}
		return &runCluster{none: true}, nil
	}
	if f.reuse {
		name := f.cluster.name
		if name == "" {
			name = cluster.DefaultName
		}
		s, err := cluster.ReadState(cacheRoot(), name)
		if err != nil {
			return nil, fmt.Errorf("--reuse: %w", err)
		}
		c, err := cluster.Reuse(cmd.Context(), s)
		if err != nil {
			return nil, fmt.Errorf("--reuse: %w", err)
		}
		o := cluster.Options{Backend: s.Backend, CRDs: f.cluster.crds}
		if _, err := cluster.Identity(o); err != nil {
			return nil, err
		}
		return &runCluster{opts: o, reused: c, reusedAs: fmt.Sprintf("cluster %s, up since %s", s.Name, s.Started.UTC().Format(time.RFC3339Nano))}, nil
	}
	o, err := f.cluster.options(cmd, nil)
	if err != nil {
		return nil, err
	}
	if _, err := cluster.Identity(o); err != nil {
		return nil, err
	}
	return &runCluster{opts: o}, nil
}

// target makes the run's cluster target; nil for --cluster none.
func (rc *runCluster) target(cmd *cobra.Command, f *runFlags, log cluster.Logger, procs *proc.Registry) (*runtarget.Target, error) {
	if rc.none {
		return nil, nil
	}
	tops := []runtarget.Option{runtarget.Keep(f.keep), runtarget.Parallel(f.parallel > 1)}
	o := rc.opts
	o.Logger, o.Procs = log, procs
	if rc.reused != nil {
		tops = append(tops, runtarget.WithCluster(rc.reused), runtarget.ReusedAs(rc.reusedAs))
	}
	return runtarget.New(cmd.Context(), o, tops...)
}

func runRun(cmd *cobra.Command, args []string, f *runFlags) error {
	if len(args) == 0 {
		args = []string{"runbooks"}
	}
	chk, err := f.check(cmd)
	if err != nil {
		return usageError(err)
	}
	rbs, err := runbook.Load(args)
	if err != nil {
		return usageError(err)
	}
	if err := chk.filter.Check(rbs); err != nil {
		return usageError(err)
	}

	out := cmd.OutOrStdout()
	printer := console.New(out, chk.tty, f.verbose)
	// Reap what a killed earlier run left; record what this one starts.
	procs, closeProcs := openProcs(printer)
	defer closeProcs()

	opts := runner.Options{
		Parallel:  f.parallel,
		Filter:    chk.filter,
		FailFast:  f.failFast,
		Update:    f.update,
		Shard:     chk.shard,
		Timings:   chk.timings,
		Timeout:   f.timeout,
		Version:   version.String(),
		Host:      host(),
		Observer:  printer,
		Env:       f.env,
		KeepWork:  f.keepWork,
		CacheOnly: f.cacheOnly,
		Dirs:      procs,
	}
	if !f.noCache {
		c := chk.cache
		if c == nil {
			if c, err = cache.Open(f.cacheDir); err != nil {
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
	opts.Cmds = kubecmd.Commands()
	opts.NeedsTarget = runtarget.Needs
	var target *runtarget.Target
	if anyNeedsCluster(rbs) {
		target, err = chk.cluster.target(cmd, f, printer, procs)
		if err != nil {
			return usageError(err)
		}
	}
	if target != nil {
		opts.Target, opts.Backend = target, target.Backend()
		defer func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(cmd.Context()), 2*time.Minute)
			defer cancel()
			if err := target.Close(ctx); err != nil {
				printer.Warn(err.Error())
			}
		}()
	}
	r, err := runner.New(opts)
	if err != nil {
		return usageError(err)
	}
	if err := r.Validate(rbs); err != nil {
		return usageError(err)
	}
	rep := r.Run(cmd.Context(), rbs)

	fmt.Fprint(out, console.Summary(rep))
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		rep.GitHubAnnotations(out)
	}
	if f.json != "" {
		if err := rep.WriteJSON(f.json); err != nil {
			return &exitError{exitFailed, err}
		}
	}
	if f.junit != "" {
		if err := rep.WriteJUnit(f.junit); err != nil {
			return &exitError{exitFailed, err}
		}
	}
	switch {
	case rep.Interrupted:
		return &exitError{exitInterrupted, context.Cause(cmd.Context())}
	case rep.Summary().Failed > 0:
		return &exitError{exitFailed, nil}
	}
	return nil
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
