package main

import (
	"context"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/run"
	"github.com/spf13/cobra"
)

// runFlags bind the flags of a runbook run (kbook run, build and serve) to
// the run library's options and cluster flags.
type runFlags struct {
	o       *run.Options
	cluster run.ClusterFlags
}

func newRunCmd() *cobra.Command {
	var o run.Options
	f := runFlags{o: &o}
	cmd := &cobra.Command{
		Use: "run [PATH...]",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.options(cmd, args); err != nil {
				return usageError(err)
			}
			rep, err := run.Run(cmd.Context(), o)
			return runExit(cmd.Context(), rep, err)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Run, "run", "", "run only runbooks (and steps) matching `RUNBOOK[/STEP]` regular expressions")
	fl.BoolVarP(&o.Update, "update", "u", false, "rewrite expected-output blocks with the actual output: testscript's cmp targets, and the expected output of exact-mode shell blocks")
	fl.BoolVar(&o.FailFast, "fail-fast", false, "start no more runbooks after the first failure")
	fl.StringVar(&o.Shard, "shard", "", "run only shard `K/N` of the runbooks, balanced by recorded durations")
	fl.StringVar(&o.Timings, "timings", "", "balance shards with the durations in this JSON `report` (default: the cache's)")
	fl.BoolVar(&o.NoCache, "no-cache", false, "run every runbook, even if an identical run passed before")
	fl.StringVar(&o.JUnit, "junit", "", "write a JUnit XML report to `FILE` (- for stdout; progress then goes to stderr)")
	fl.StringVar(&o.JSON, "json", "", "write the JSON report to `FILE` (- for stdout; progress then goes to stderr)")
	fl.BoolVar(&o.KeepWork, "keep-work", false, "keep each runbook's $WORK directory and print where it is")
	fl.BoolVarP(&o.Verbose, "verbose", "v", false, "print every command and its output")
	fl.BoolVar(&o.Keep, "keep", false, "keep each runbook's namespace and the objects it created")
	fl.BoolVar(&f.cluster.Reuse, "reuse", false, "run against the cluster started with kbook cluster up (see --name)")
	fl.StringVar(&f.cluster.Options.Name, "name", "", "with --reuse: the kbook cluster up `name` (default \"default\"); with --cluster kind: the kind cluster name (default \"kbook\")")
	f.register(fl)
	fl.StringVar(&o.Progress, "progress", "auto", "progress display: auto, tty or plain")
	return cmd
}

// options completes the run's options from cmd's command line: the
// paths, the flags given, the output, the process registry and the
// cluster.
func (f *runFlags) options(cmd *cobra.Command, paths []string) error {
	ch := changed(cmd)
	f.o.Paths, f.o.CacheDirSet, f.o.IOStreams, f.o.OpenProcs = paths, ch["cache-dir"], streams(cmd), openProcs
	f.cluster.StateRoot, f.cluster.Changed = cacheRoot(), ch
	c, err := f.cluster.Cluster()
	f.o.Cluster = c
	return err
}

// runExit maps a run's outcome to kbook's exit codes: bad input 2, a
// failed runbook (or a report not written) 1, interrupted 130.
func runExit(ctx context.Context, rep *report.Report, err error) error {
	switch {
	case err != nil:
		return failure(err)
	case rep.Interrupted:
		return &exitError{findings.ExitInterrupted, context.Cause(ctx)}
	}
	return result(nil, rep.Summary().Failed > 0)
}
