package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/run"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/k0rdent/kbook/internal/site/serve"
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
		Use:   "serve [DIR]",
		Short: "Serve the docs site locally and reload the browser on every save",
		Long: `Build the docs site of DIR (default: the current directory) and serve it on
http://127.0.0.1:1313. Every save below content/, runbooks/ and site/ (and
of kbook.yaml) rebuilds the site and reloads open pages; a build error is
shown in the browser with its file:line and the server keeps running.

Runbook pages show cached results; with --run the runbooks are run at
start (unchanged ones come from the cache) and a changed runbook is run
again, its page updating with the new result. Ctrl-C stops the server.`,
		Example: `  # Write docs with a live preview
  kbook serve

  # Also run each runbook you change, against the local API server
  kbook serve --run --crds crds/k0rdent`,
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
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	if err := site.CheckVersionName(f.version); err != nil {
		return usageError(fmt.Errorf("--version: %w", err))
	}
	if f.port < 0 || f.port > 65535 {
		return usageError(fmt.Errorf("--port %d: want 0 to 65535 (0: any free port)", f.port))
	}
	proj, err := site.Load(dir)
	if err != nil {
		return usageError(siteError(dir, err))
	}
	// The served folder lives in kbook's process registry: the next kbook
	// removes it if this one is killed.
	procs, closeProcs := openProcs(siteLogger{cmd})
	defer closeProcs()
	out, err := procs.MkdirTemp("kbook-serve-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)

	search := site.FindPagefind(dir)
	logf := func(format string, a ...any) { fmt.Fprintf(cmd.ErrOrStderr(), "kbook serve: "+format+"\n", a...) }
	live := &site.Live{Dir: dir, Version: f.version, Out: out, Search: search, LiveReload: serve.EventsPath, Dirs: procs, HugoTimeout: f.hugo, Log: logf}
	if f.run {
		live.Run = func(ctx context.Context, files []string) (*report.Report, error) {
			return runSome(cmd, proj, files, &f.rf, procs)
		}
	}
	// The port is taken before the runbooks run: a busy one fails at once.
	srv, err := serve.New(serve.Options{
		Root:  dir,
		Watch: []string{proj.Config.Content, proj.Config.Runbooks, proj.Config.Site},
		Dir:   out,
		Addr:  net.JoinHostPort(f.bind, strconv.Itoa(f.port)),
		Build: func(ctx context.Context, changed []string) error { return siteError(dir, live.Build(ctx, changed)) },
		Log:   logf,
	})
	if err != nil {
		return usageError(err)
	}
	rep, runErr := siteResults(cmd, proj, nil, !f.run, &f.rf, procs)
	var ee *exitError
	if runErr != nil && (!errors.As(runErr, &ee) || ee.code != findings.ExitErrors) {
		srv.Close()
		return runErr
	}
	live.SetResults(rep)
	live.Rebuild = func() { srv.Rebuild() }
	defer live.Wait()
	if !search.Available() {
		logf("note: %s", search.Why)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "kbook serve: serving %s on %s (Ctrl-C to stop)\n", dir, srv.URL())
	return srv.Serve(cmd.Context())
}

// runSome runs the given runbook files in process and returns their
// report.
func runSome(cmd *cobra.Command, proj *site.Project, files []string, rf *runFlags, procs *proc.Registry) (*report.Report, error) {
	o, err := siteRunOptions(cmd, proj, rf, procs)
	if err != nil {
		return nil, usageError(err)
	}
	o.Paths, o.CacheOnly = files, false
	rep, err := run.Run(cmd.Context(), o)
	var ee *exitError
	if err := runExit(cmd.Context(), rep, err); err != nil && (!errors.As(err, &ee) || ee.code != findings.ExitErrors) {
		return nil, err
	}
	return rep, nil
}
