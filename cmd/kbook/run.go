package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/console"
	"github.com/k0rdent/kbook/internal/kube"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runcluster"
	"github.com/k0rdent/kbook/internal/runner"
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

Exit status: 0 all passed or skipped, 1 a runbook failed, 2 bad input,
130 interrupted.`,
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
	fl.StringArrayVar(&f.env, "env", nil, "set `KEY=VALUE` in every script's environment (repeatable)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "print every command and its output")
	fl.StringVar(&f.progress, "progress", "auto", "progress display: auto, tty or plain")
	fl.BoolVar(&f.keep, "keep", false, "keep each runbook's namespace and the objects it created")
	fl.BoolVar(&f.reuse, "reuse", false, "run against the cluster started with kbook cluster up (see --name)")
	fl.StringVar(&f.cluster.name, "name", "", "with --reuse: the kbook cluster up `name` (default \"default\"); with --cluster kind: the kind cluster name (default \"kbook\")")
	f.cluster.register(cmd, true)
	return cmd
}

func runRun(cmd *cobra.Command, args []string, f *runFlags) error {
	if len(args) == 0 {
		args = []string{"runbooks"}
	}
	filter, err := runner.ParseFilter(f.run)
	if err != nil {
		return usageError(err)
	}
	var shard runner.Shard
	if f.shard != "" {
		if shard, err = runner.ParseShard(f.shard); err != nil {
			return usageError(err)
		}
	}
	for _, kv := range f.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return usageError(fmt.Errorf("--env %q: want KEY=VALUE", kv))
		}
	}
	if f.parallel < 0 {
		return usageError(fmt.Errorf("--parallel %d: want at least 1", f.parallel))
	}
	if f.parallel == 0 {
		f.parallel = runtime.NumCPU()
	}
	if f.cacheDir == "" {
		f.cacheDir = cache.DefaultDir()
	}
	var timings map[string]time.Duration
	if f.timings != "" {
		rep, err := report.ReadJSON(f.timings)
		if err != nil {
			return usageError(err)
		}
		timings = map[string]time.Duration{}
		for _, rb := range rep.Runbooks {
			timings[rb.Path] = rb.Duration
		}
	}
	rbs, err := runbook.Load(args)
	if err != nil {
		return usageError(err)
	}

	out := cmd.OutOrStdout()
	tty := false
	switch f.progress {
	case "auto":
		tty = os.Getenv("CI") == "" && term.IsTerminal(int(os.Stdout.Fd()))
	case "tty":
		tty = true
	case "plain":
	default:
		return usageError(fmt.Errorf("--progress %q: want auto, tty or plain", f.progress))
	}
	printer := console.New(out, tty, f.verbose)
	// Reap what a killed earlier run left; record what this one starts.
	procs, closeProcs := openProcs(printer)
	defer closeProcs()

	opts := runner.Options{
		Parallel:  f.parallel,
		Filter:    filter,
		FailFast:  f.failFast,
		Update:    f.update,
		Shard:     shard,
		Timings:   timings,
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
		c, err := cache.Open(f.cacheDir)
		switch {
		case err != nil && cmd.Flags().Changed("cache-dir"):
			return usageError(err)
		case err != nil:
			printer.Warn(fmt.Sprintf("cache disabled: %v", err))
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
	opts.Cmds = kube.Commands()
	opts.NeedsTarget = runcluster.Needs
	var target *runcluster.Target
	if anyNeedsCluster(rbs) {
		target, err = newTarget(cmd, f, printer, procs)
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

// newTarget builds the cluster target the flags describe; nil for --cluster none.
func newTarget(cmd *cobra.Command, f *runFlags, log cluster.Logger, procs *proc.Registry) (*runcluster.Target, error) {
	if f.cluster.backend == "none" {
		return nil, nil
	}
	tops := []runcluster.Option{runcluster.Keep(f.keep), runcluster.Parallel(f.parallel > 1)}
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
		tops = append(tops, runcluster.WithCluster(c), runcluster.ReusedAs(fmt.Sprintf("cluster %s, up since %s", s.Name, s.Started.UTC().Format(time.RFC3339Nano))))
		return runcluster.New(cmd.Context(), cluster.Options{Backend: s.Backend, CRDs: f.cluster.crds, Logger: log}, tops...)
	}
	o, err := f.cluster.options(cmd, log)
	if err != nil {
		return nil, err
	}
	o.Procs = procs
	return runcluster.New(cmd.Context(), o, tops...)
}

func anyNeedsCluster(rbs []*runbook.Runbook) bool {
	for _, rb := range rbs {
		if runcluster.Needs(rb) {
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
