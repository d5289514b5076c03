package main

import (
	"context"
	"github.com/k0rdent/kbook/internal/log"
	"time"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/run"
	"github.com/spf13/cobra"
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
		Use: "run [PATH...]",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(cmd, args, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.run, "run", "", "run only runbooks (and steps) matching `RUNBOOK[/STEP]` regular expressions")
	fl.BoolVarP(&f.update, "update", "u", false, "rewrite expected-output blocks (compared with cmp) with the actual output")
	fl.BoolVar(&f.failFast, "fail-fast", false, "start no more runbooks after the first failure")
	fl.StringVar(&f.shard, "shard", "", "run only shard `K/N` of the runbooks, balanced by recorded durations")
	fl.StringVar(&f.timings, "timings", "", "balance shards with the durations in this JSON `report` (default: the cache's)")
	fl.BoolVar(&f.noCache, "no-cache", false, "run every runbook, even if an identical run passed before")
	fl.StringVar(&f.junit, "junit", "", "write a JUnit XML report to `FILE`")
	fl.StringVar(&f.json, "json", "", "write the JSON report to `FILE`")
	fl.BoolVar(&f.keepWork, "keep-work", false, "keep each runbook's $WORK directory and print where it is")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "print every command and its output")
	fl.BoolVar(&f.keep, "keep", false, "keep each runbook's namespace and the objects it created")
	fl.BoolVar(&f.reuse, "reuse", false, "run against the cluster started with kbook cluster up (see --name)")
	fl.StringVar(&f.cluster.o.Name, "name", "", "with --reuse: the kbook cluster up `name` (default \"default\"); with --cluster kind: the kind cluster name (default \"kbook\")")
	f.registerRun(cmd)
	fl.StringVar(&f.progress, "progress", "auto", "progress display: auto, tty or plain")
	return cmd
}

// options turns the flags into the run library's options.
func (f *runFlags) options(cmd *cobra.Command, args []string) (run.Options, error) {
	ch := changed(cmd)
	o := run.Options{Paths: args, Parallel: f.parallel, Run: f.run, Update: f.update, FailFast: f.failFast,
		Shard: f.shard, Timings: f.timings, NoCache: f.noCache, CacheDir: f.cacheDir,
		CacheDirSet: ch["cache-dir"], Timeout: f.timeout, JSON: f.json, JUnit: f.junit,
		KeepWork: f.keepWork, Env: f.env, Verbose: f.verbose, Progress: f.progress, Keep: f.keep,
		CacheOnly: f.cacheOnly, Out: cmd.OutOrStdout(),
		OpenProcs: func(l log.Logger) (*proc.Registry, func()) { return openProcs(l) }}
	c, err := run.ClusterFlags{Backend: f.cluster.backend, Reuse: f.reuse, StateRoot: cacheRoot(),
		Options: f.cluster.o, Changed: ch}.Cluster()
	o.Cluster = c
	return o, err
}

func runRun(cmd *cobra.Command, args []string, f *runFlags) error {
	o, err := f.options(cmd, args)
	if err != nil {
		return usageError(err)
	}
	rep, err := run.Run(cmd.Context(), o)
	return runExit(cmd.Context(), rep, err)
}

// runExit maps a run's outcome to kbook's exit codes: bad input 2, a
// failed runbook (or a report not written) 1, interrupted 130.
func runExit(ctx context.Context, rep *report.Report, err error) error {
	switch {
	case err != nil:
		return failure(err)
	case rep.Interrupted:
		return &exitError{findings.ExitInterrupted, context.Cause(ctx)}
	case rep.Summary().Failed > 0:
		return code(findings.ExitErrors)
	}
	return nil
}
