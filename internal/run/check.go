package run

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
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runner"
	"golang.org/x/term"
)

// Cluster is the cluster a run uses when a runbook needs one.
type Cluster struct {
	// None starts no cluster (--cluster none).
	None bool
	// Auto says --cluster auto chose Options.Backend: the local backend
	// unless --kubeconfig or --context was given ($KUBECONFIG alone
	// chooses nothing: a runbook creates and deletes objects, and the
	// cluster a shell's $KUBECONFIG names may be anyone's).
	Auto bool
	// Options are the backend's, checked before anything runs.
	Options cluster.Options
	// Reuse names the kbook cluster up cluster to run against ("": start
	// one); its state is under StateRoot.
	Reuse     string
	StateRoot string
}

// checked is what check made of the options.
type checked struct {
	filter  runner.Filter
	shard   runner.Shard
	timings map[string]time.Duration
	tty     bool
	cache   *cache.Cache
	cluster *runCluster
}

// check checks every option before anything runs, so that bad input is
// one line and exit status 2 whatever the runbooks need: a cluster, CRDs
// or kubeconfig that can never work fails even when no runbook needs a
// cluster, and a report that cannot be written fails before the run, not
// after it. It fills in defaults (Parallel, CacheDir, Env values).
func check(ctx context.Context, o *Options) (*checked, error) {
	c := &checked{}
	var err error
	if c.filter, err = runner.ParseFilter(o.Run); err != nil {
		return nil, err
	}
	if o.Shard != "" {
		if c.shard, err = runner.ParseShard(o.Shard); err != nil {
			return nil, err
		}
	}
	if o.Env, err = passEnv(o.Env); err != nil {
		return nil, err
	}
	if o.Parallel < 0 {
		return nil, fmt.Errorf("--parallel %d: want at least 1", o.Parallel)
	}
	if o.Parallel == 0 {
		o.Parallel = runtime.NumCPU()
	}
	if o.Timeout <= 0 {
		return nil, fmt.Errorf("--timeout %s: want a positive time limit such as 90s or 10m", o.Timeout)
	}
	switch o.Progress {
	case "auto", "":
		c.tty = os.Getenv("CI") == "" && isTerminal(o)
	case "tty":
		c.tty = true
	case "plain":
	default:
		return nil, fmt.Errorf("--progress %q: want auto, tty or plain", o.Progress)
	}
	if o.Timings != "" {
		rep, err := report.ReadJSON(o.Timings)
		if err != nil {
			return nil, fmt.Errorf("--timings: %w", err)
		}
		c.timings = map[string]time.Duration{}
		for _, rb := range rep.Runbooks {
			c.timings[rb.Path] = rb.Duration
		}
	}
	if err := checkReports(o.JSON, o.JUnit); err != nil {
		return nil, err
	}
	if o.CacheDir == "" {
		o.CacheDir = cache.DefaultDir()
	}
	// Absolute: the scripts get it as KBOOK_CACHE_DIR in their own
	// working directories.
	if abs, err := filepath.Abs(o.CacheDir); err == nil {
		o.CacheDir = abs
	}
	if !o.NoCache && o.CacheDirSet {
		if c.cache, err = cache.Open(o.CacheDir); err != nil {
			return nil, fmt.Errorf("--cache-dir: %w", err)
		}
	}
	if c.cluster, err = checkCluster(ctx, o.Cluster); err != nil {
		return nil, err
	}
	return c, nil
}

// isTerminal reports whether the run's output is a terminal.
func isTerminal(o *Options) bool {
	f, ok := o.progress().(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// passEnv resolves --env: KEY alone passes kbook's own value of KEY, as
// docker run -e does; scripts inherit no variable of kbook's environment
// otherwise.
func passEnv(env []string) ([]string, error) {
	out := make([]string, len(env))
	for i, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if k == "" || strings.ContainsAny(k, " \t") {
			return nil, fmt.Errorf("--env %q: want KEY=VALUE or KEY", kv)
		}
		out[i] = kv
		if !ok {
			v, set := os.LookupEnv(k)
			if !set {
				return nil, fmt.Errorf("--env %s: %s is not set in kbook's environment (give a value with --env %s=VALUE)", k, k, k)
			}
			out[i] = k + "=" + v
		}
	}
	return out, nil
}

// checkReports checks that the --json and --junit files can be written:
// different files, in directories that exist and take new files; "-"
// (stdout) for at most one of them.
func checkReports(json, junit string) error {
	if json == report.Stdout && junit == report.Stdout {
		return report.ErrBothStdout
	}
	if json != "" && junit != "" {
		a, errA := filepath.Abs(json)
		b, errB := filepath.Abs(junit)
		if errA == nil && errB == nil && a == b {
			return fmt.Errorf("--json and --junit both name %s: one report would overwrite the other", json)
		}
	}
	for _, r := range []struct{ flag, path string }{{"--json", json}, {"--junit", junit}} {
		if r.path == "" || r.path == report.Stdout {
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
	auto     bool
	opts     cluster.Options
	reused   cluster.Cluster
	reusedAs string
}

// checkCluster checks the cluster: the backend exists, the CRD paths do,
// the kubeconfig loads, the reused cluster answers.
func checkCluster(ctx context.Context, c Cluster) (*runCluster, error) {
	if c.None {
		return &runCluster{none: true}, nil
	}
	if c.Reuse != "" {
		s, err := cluster.ReadState(c.StateRoot, c.Reuse)
		if err != nil {
			return nil, fmt.Errorf("--reuse: %w", err)
		}
		rc, err := cluster.Reuse(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("--reuse: %w", err)
		}
		o := cluster.Options{Backend: s.Backend, CRDs: c.Options.CRDs}
		if _, err := cluster.Identity(o); err != nil {
			return nil, err
		}
		return &runCluster{opts: o, reused: rc, reusedAs: fmt.Sprintf("cluster %s, up since %s", s.Name, s.Started.UTC().Format(time.RFC3339Nano))}, nil
	}
	if _, err := cluster.Identity(c.Options); err != nil {
		return nil, err
	}
	return &runCluster{opts: c.Options, auto: c.Auto}, nil
}

// target makes the run's cluster target; nil with no cluster.
func (rc *runCluster) target(ctx context.Context, o *Options, log log.Logger, procs *proc.Registry) (*runtarget.Target, error) {
	if rc.none {
		return nil, nil
	}
	if rc.auto && rc.opts.Backend != cluster.Kubeconfig && os.Getenv("KUBECONFIG") != "" {
		log.Infof("kbook: KUBECONFIG is set, but runbooks run on a cluster kbook starts (--cluster auto without --kubeconfig or --context: %s); --cluster kubeconfig runs them on KUBECONFIG's cluster", rc.opts.Backend)
	}
	tops := []runtarget.Option{runtarget.Keep(o.Keep), runtarget.Parallel(o.Parallel > 1)}
	co := rc.opts
	co.Logger, co.Procs = log, procs
	if rc.reused != nil {
		tops = append(tops, runtarget.WithCluster(rc.reused), runtarget.ReusedAs(rc.reusedAs))
	}
	return runtarget.New(ctx, co, tops...)
}
