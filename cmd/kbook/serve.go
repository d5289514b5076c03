package main

import (
	"github.com/k0rdent/kbook/internal/log"
	"time"

	"github.com/k0rdent/kbook/internal/site"
	"github.com/k0rdent/kbook/internal/site/build"
	"github.com/spf13/cobra"
)

type serveFlags struct {
	port    int
	bind    string
	run     bool
	version string
	hugo    time.Duration
	rf      runFlags
}

func newServeCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:  "serve [DIR]",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd, args, &f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.port, "port", 1313, "TCP `port` to serve on")
	fl.StringVar(&f.bind, "bind", "127.0.0.1", "`address` to listen on")
	fl.BoolVar(&f.run, "run", false, "run the runbooks at start and each runbook again when it changes")
	fl.StringVar(&f.version, "version", site.NextVersion, "version `name` the served site shows")
	fl.DurationVar(&f.hugo, "hugo-timeout", site.DefaultHugoTimeout, "time limit of each Hugo build; a build still running then is stopped and shown as failed")
	f.rf.registerRun(cmd)
	return cmd
}

func runServe(cmd *cobra.Command, args []string, f *serveFlags) error {
	ro, err := f.rf.options(cmd, nil)
	if err != nil {
		return usageError(err)
	}
	o := build.ServeOptions{Version: f.version, Bind: f.bind, Port: f.port, Run: f.run, RunOptions: ro, CRDsGiven: len(f.rf.cluster.o.CRDs) > 0,
		HugoTimeout: f.hugo, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}
	if len(args) == 1 {
		o.Dir = args[0]
	}
	procs, closeProcs := openProcs(log.To{W: cmd.ErrOrStderr()})
	defer closeProcs()
	o.Procs = procs
	return exit(cmd.Context(), build.Serve(cmd.Context(), o))
}
