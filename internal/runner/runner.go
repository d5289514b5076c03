package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/mask"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/rogpeppe/go-internal/testscript"
)

// Condition reports whether a named condition holds and, when it does not,
// why. Conditions serve both [name] prefixes in scripts and the requires
// list of the front matter. A condition registered under a name ending in
// ":" (such as "api:") is a family: [api:clusters.cluster.x-k8s.io] calls it
// with the text after the colon as arg; other conditions get "".
type Condition func(arg string) (ok bool, why string)

// Options configure a run. The zero value runs every runbook once, one at a
// time, without cache or cluster.
type Options struct {
	// Parallel is how many runbooks run at once (default: number of CPUs).
	Parallel int
	// Filter selects runbooks and steps.
	Filter Filter
	// FailFast stops starting runbooks after the first failure.
	FailFast bool
	// Update rewrites expected-output blocks with the actual output.
	Update bool
	// Shard runs one part of the runbooks.
	Shard Shard
	// Timings balance shards; nil uses the cache's recorded durations.
	Timings map[string]time.Duration
	// Timeout bounds each runbook unless its front matter says otherwise
	// (default 10m).
	Timeout time.Duration
	// Cache, if set, skips unchanged runbooks that passed before.
	Cache *cache.Cache
	// KbookID identifies the kbook binary in cache keys.
	KbookID string
	// Version is the kbook version written into the report.
	Version string
	// Backend names what the runbooks run against; "none" if empty.
	Backend string
	// Host describes the machine in the report.
	Host string
	// Observer is told about progress.
	Observer Observer
	// Conditions extend the [condition] set; a backend provides "cluster",
	// "kind", "k0rdent"... Unset names from runbook.KnownRequirements are false.
	Conditions map[string]Condition
	// Cmds are extra testscript commands.
	Cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)
	// Target is the cluster the runbooks run against; nil for none.
	Target Target
	// NeedsTarget tells whether a runbook uses a cluster (requires,
	// conditions, Kubernetes commands); without a Target such runbooks
	// are skipped with the reason. nil: none is taken to.
	NeedsTarget func(*runbook.Runbook) bool
	// Env holds extra KEY=VALUE variables for every script.
	Env []string
	// CacheDir, when set, is every script's KBOOK_CACHE_DIR (before Env,
	// which may set it too): a kbook a step runs shares the run's cache
	// (node image, controllers, API server binaries) instead of building
	// its own under the script's HOME. Not part of a result's cache key.
	CacheDir string
	// KeepWork leaves work directories in place and reports them.
	KeepWork bool
	// Offline says the run has no internet: a page's shell block that
	// downloads (curl or wget of a URL, kubectl -f URL, git clone, a
	// package manager's install) is skipped, with the reason.
	Offline bool
	// WorkRoot is where work directories are made (default: os.TempDir()).
	WorkRoot string
	// CacheOnly runs nothing: a runbook without a cached pass is reported
	// skipped (kbook build --no-run, kbook serve).
	CacheOnly bool
	// Dirs records each work directory while it exists (they hold the
	// runbook's kubeconfig), so that a later run removes those of a run
	// that was killed; nil: untracked. A *proc.Registry is one.
	Dirs DirTracker
}

// DirTracker records directories that must not outlive the run.
type DirTracker interface {
	TrackDir(path string) error
	ForgetDir(path string)
}

// SecretHolder is implemented by sessions that hand a runbook credentials
// (the keys and tokens of the kubeconfig it gets): the runner masks them,
// and the forms tools print them in, in everything it records.
type SecretHolder interface {
	Secrets() []string
}

// AloneKey is the Env.Values key, set before Target.Prepare, of why the
// runbook runs alone on the run's cluster (runbook.SharesCluster): no
// other runbook uses the cluster until its session is closed. Absent for
// a runbook that shares it.
type AloneKey struct{}

// Restorer is implemented by sessions that put the cluster back as it
// was before a runbook that ran alone: Restored, asked after Close, says
// what they put back (nil: nothing was checked).
type Restorer interface {
	Restored() *report.Restored
}

// Starter is implemented by targets that start something before a
// runbook can use them (a local API server, possibly built first). The
// runner starts it before a runbook that needs it (see NeedsTarget) begins,
// so that neither the runbook's duration (which balances shards) nor its
// time limit counts the wait. An error is reported when the runbook
// prepares the target.
type Starter interface {
	Start(ctx context.Context) error
}

// Describer is implemented by targets that can tell what a runbook ran
// against, for the result's Environment: the server version, the
// CustomResourceDefinition group/versions served and the k0rdent plane.
// It is asked only after a runbook ran, so it never starts a cluster.
type Describer interface {
	Describe(ctx context.Context, env *report.Environment)
}

// Breakable is implemented by targets that can be lost under the runbooks
// (the local API server's etcd or kube-apiserver exits). Broken is closed
// then and BrokenErr says what was lost: the runner ends kbook's commands
// (await, assert) and the programs they exec (kubectl wait) in the
// runbooks that run, stops their scripts before the next command, fails
// them with that message rather than letting them wait out their time
// limits, and fails the runbooks that need the target and have not
// started yet. BrokenErr looks again (it may be non-nil before Broken
// closes): the runner asks it when a runbook ends, and a runbook that used
// the target is never reported passed once it is lost, since a negated
// command that failed against the dead server would pass.
type Breakable interface {
	Broken() <-chan struct{}
	BrokenErr() error
}

// broken is why the run's target was lost, or nil.
func (r *Runner) broken() error {
	b, ok := r.opts.Target.(Breakable)
	if !ok {
		return nil
	}
	return b.BrokenErr()
}

// Target is what runbooks run against: a cluster backend. The runner asks
// it for conditions and prepares one Session per runbook.
type Target interface {
	// ID identifies the target in cache keys: results against another
	// backend, Kubernetes version or set of CRDs are not reused.
	ID() string
	// Conditions are the target's [conditions] and requirements.
	Conditions() map[string]Condition
	// Prepare readies the target for one runbook, after its files are in
	// $WORK; it may set variables and env.Values for the script's commands.
	Prepare(ctx context.Context, rb *runbook.Runbook, env *testscript.Env) (Session, error)
}

// Session is one runbook's use of a Target.
type Session interface {
	// Diagnose describes the state of what the runbook touched; it is
	// called when the runbook failed, before Close.
	Diagnose(ctx context.Context) string
	// Close releases what the runbook made (its namespace, objects it
	// created). It runs after failures and interrupts too.
	Close(ctx context.Context) error
}

// Runner runs runbooks.
type Runner struct {
	opts  Options
	obs   Observer
	conds map[string]Condition
	cmds  map[string]func(ts *testscript.TestScript, neg bool, args []string)
	// path is the PATH scripts see: kbook's own directory first, so that
	// runbooks can exec kbook.
	path string
	// bash is where bash is on path, looked up once for the run's pages
	// (a page's bash starts as it starts, and the stats of a long PATH
	// took a fifth of a millisecond there, beside the page's setup).
	bash func() (string, error)
	// programs identifies the programs runbooks run, for cache keys.
	programs programIDs
}

// New returns a Runner.
func New(opts Options) (*Runner, error) {
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.NumCPU()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Minute
	}
	if opts.Backend == "" {
		opts.Backend = "none"
	}
	r := &Runner{opts: opts, obs: opts.Observer, conds: map[string]Condition{}, cmds: map[string]func(*testscript.TestScript, bool, []string){}}
	if r.obs == nil {
		r.obs = NopObserver{}
	}
	noCluster := func(string) (bool, string) { return false, "no cluster is configured for this run" }
	for _, name := range runbook.KnownRequirements {
		r.conds[name] = noCluster
	}
	r.conds["api:"] = noCluster
	if opts.Target != nil {
		for k, v := range opts.Target.Conditions() {
			r.conds[k] = v
		}
	}
	for k, v := range opts.Conditions {
		r.conds[k] = v
	}
	for k, v := range opts.Cmds {
		if k == markerCmd || k == shellCmd {
			return nil, fmt.Errorf("command name %s is reserved", markerCmd)
		}
		r.cmds[k] = v
	}
	r.cmds[markerCmd] = marker
	r.cmds[shellCmd] = shellStep
	r.path = os.Getenv("PATH")
	if exe, err := os.Executable(); err == nil {
		r.path = filepath.Dir(exe) + string(os.PathListSeparator) + r.path
	}
	r.bash = sync.OnceValues(func() (string, error) { return lookPath("bash", r.path) })
	return r, nil
}

// Run runs the runbooks and returns the report. Cancelling ctx (Ctrl-C)
// stops running commands, skips runbooks not yet started and still returns
// a complete report.
func (r *Runner) Run(ctx context.Context, rbs []*runbook.Runbook) *report.Report {
	rep := &report.Report{
		FormatVersion: report.FormatVersion,
		Kbook:         r.opts.Version,
		Backend:       r.opts.Backend,
		Host:          r.opts.Host,
		Started:       time.Now(),
	}
	var sel []*runbook.Runbook
	for _, rb := range rbs {
		if r.opts.Filter.MatchRunbook(rb) {
			sel = append(sel, rb)
		}
	}
	if r.opts.Shard.N > 1 {
		timings := r.opts.Timings
		if timings == nil && r.opts.Cache != nil {
			timings = r.opts.Cache.Durations()
		}
		sel = r.opts.Shard.Select(sel, timings)
	}

	stopKill := watchInterrupt(ctx)
	defer stopKill()
	ws := &workspace{parent: r.opts.WorkRoot, dirs: r.opts.Dirs, keep: r.opts.KeepWork}
	defer ws.close()

	results := make([]*report.Runbook, len(sel))
	var (
		mu       sync.Mutex
		stopping bool
		wg       sync.WaitGroup
		// cluster is held shared by each runbook on the run's
		// cluster, and alone by a page that names namespaces of its
		// own or makes cluster-wide objects (SharesCluster): no other
		// runbook runs beside it, and its cleanup deletes only what
		// it made.
		cluster sync.RWMutex
	)
	work := make(chan int)
	for w := 0; w < min(r.opts.Parallel, max(len(sel), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				rb := sel[i]
				mu.Lock()
				stop := stopping
				mu.Unlock()
				var res *report.Runbook
				switch {
				case ctx.Err() != nil:
					res = skippedResult(rb, "not run: the run was interrupted")
				case stop:
					res = skippedResult(rb, "not run: --fail-fast after an earlier failure")
				default:
					alone := ""
					if r.opts.Target != nil {
						alone = rb.SharesCluster()
					}
					if alone != "" {
						cluster.Lock()
					} else {
						cluster.RLock()
					}
					r.obs.RunbookStarted(rb)
					res = r.runOne(ctx, ws, rb, alone)
					if alone != "" {
						res.Alone = alone
						cluster.Unlock()
					} else {
						cluster.RUnlock()
					}
				}
				if res.Status == report.Failed && r.opts.FailFast {
					mu.Lock()
					stopping = true
					mu.Unlock()
				}
				results[i] = res
				r.obs.RunbookFinished(res)
			}
		}()
	}
	timings := r.opts.Timings
	if timings == nil && r.opts.Cache != nil && r.opts.Parallel > 1 {
		timings = r.opts.Cache.Durations()
	}
	for _, i := range startOrder(sel, r.opts.Parallel, timings) {
		work <- i
	}
	close(work)
	wg.Wait()
	rep.Runbooks = results
	rep.Duration = time.Since(rep.Started)
	rep.Interrupted = ctx.Err() != nil
	return rep
}

// runOne produces a runbook's result, stamped with the hash of the source
// it describes.
func (r *Runner) runOne(ctx context.Context, ws *workspace, rb *runbook.Runbook, alone string) *report.Runbook {
	res := r.result(ctx, ws, rb, alone)
	if ctx.Err() != nil && res.Status == report.Failed {
		// Stopped before its script ran (the cluster's start was
		// interrupted): the interrupt's doing too.
		markInterrupted(res)
	}
	if res.SourceSHA256 == "" {
		res.SourceSHA256 = SourceSum(rb)
	}
	return res
}

// SourceSum is the hex sha256 of a runbook's source, as results record it.
func SourceSum(rb *runbook.Runbook) string {
	sum := sha256.Sum256(rb.Source)
	return hex.EncodeToString(sum[:])
}

// environment describes the run for a result; the target is asked only
// when the runbook used it (its cluster is then started).
func (r *Runner) environment(ctx context.Context, usedTarget bool) *report.Environment {
	env := &report.Environment{Kbook: r.opts.Version, Backend: r.opts.Backend, Host: r.opts.Host}
	if !usedTarget {
		env.Backend = "none"
	}
	if d, ok := r.opts.Target.(Describer); ok && usedTarget {
		d.Describe(ctx, env)
	}
	return env
}

// runOne decides whether a runbook can run, consults the cache and runs it.
//
// Programs a runbook requires are checked first; its other requirements
// only on a cache miss: answering them may start the cluster, and a cached
// pass was verified against the same backend and CRDs (they are part of
// the cache key), so a run whose runbooks all come from the cache starts
// nothing.
func (r *Runner) result(ctx context.Context, ws *workspace, rb *runbook.Runbook, alone string) *report.Runbook {
	if why := r.unmet(rb, true); why != "" {
		return skippedResult(rb, why)
	}
	if r.opts.Target == nil && r.opts.NeedsTarget != nil && r.opts.NeedsTarget(rb) {
		// What the requirements say, if they say it (cheap without a
		// cluster), else why.
		if why := r.unmet(rb, false); why != "" {
			return skippedResult(rb, why)
		}
		return skippedResult(rb, "needs a cluster, and this run has none (--cluster none)")
	}
	p, err := newPlan(rb, r.selected)
	if err != nil {
		return failed(&report.Runbook{Path: rb.Path, Title: rb.Title()}, err.Error())
	}
	var sum string
	useCache := r.opts.Cache != nil && !r.opts.Update && !r.opts.Filter.Selective()
	if useCache {
		key, err := r.key(rb)
		if err != nil {
			return failed(&report.Runbook{Path: rb.Path, Title: rb.Title(), Verified: time.Now()}, err.Error())
		}
		sum = key.Sum()
		hit, ok, err := r.opts.Cache.Lookup(sum)
		if err != nil {
			r.obs.Warn(rb.Path + ": " + err.Error())
		}
		if ok && hit.Status == report.Passed {
			hit.Cached = true
			hit.Restored = nil // nothing ran, so nothing was put back
			hit.Path, hit.Title = rb.Path, rb.Title()
			return hit
		}
	}
	if r.opts.CacheOnly {
		return skippedResult(rb, "not run: no cached result, and this run reads the cache only (kbook build --no-run, kbook serve without --run)")
	}
	if why := r.unmet(rb, false); why != "" {
		return skippedResult(rb, why)
	}
	if st, ok := r.opts.Target.(Starter); ok && r.opts.NeedsTarget != nil && r.opts.NeedsTarget(rb) {
		_ = st.Start(ctx) // Prepare reports a failure, at the runbook
	}
	if err := r.broken(); err != nil && r.opts.NeedsTarget != nil && r.opts.NeedsTarget(rb) {
		return failed(&report.Runbook{Path: rb.Path, Title: rb.Title(), Verified: time.Now()}, "not run: "+err.Error())
	}
	x := &execution{r: r, ws: ws, rb: rb, alone: alone, plan: p, ctx: ctx, masker: mask.New(mask.SecretValues(os.Environ())...)}
	res := x.run()
	if res.Status != report.Skipped {
		x.mu.Lock()
		used := x.session != nil
		x.mu.Unlock()
		res.Env = r.environment(context.WithoutCancel(ctx), used)
	}
	if useCache && res.Status == report.Passed {
		if err := r.opts.Cache.Put(sum, res); err != nil {
			r.obs.Warn(err.Error())
		}
	} else if r.opts.Cache != nil && res.Status != report.Skipped && res.Status != report.Interrupted {
		if err := r.opts.Cache.RecordDuration(rb.Path, res.Duration); err != nil {
			r.obs.Warn(err.Error())
		}
	}
	return res
}

// unmet returns why a runbook's requirements are not met, or "".
// With programsOnly, only exec:PROGRAM requirements are checked.
func (r *Runner) unmet(rb *runbook.Runbook, programsOnly bool) string {
	for _, req := range rb.Meta.Requires {
		if prog, ok := strings.CutPrefix(req, "exec:"); ok {
			if _, err := lookPath(prog, r.path); err != nil {
				return fmt.Sprintf("requires %s: %s not found on PATH", req, prog)
			}
			continue
		}
		if programsOnly {
			continue
		}
		c, arg, ok := r.lookupCondition(req)
		if !ok {
			return fmt.Sprintf("requires %s: unknown requirement", req)
		}
		if ok, why := c(arg); !ok {
			return fmt.Sprintf("requires %s: %s", req, why)
		}
	}
	return ""
}

// condition serves testscript's [name] prefixes beyond its built-in set.
func (r *Runner) condition(cond string) (bool, error) {
	c, arg, ok := r.lookupCondition(cond)
	if !ok {
		names := make([]string, 0, len(r.conds))
		for n := range r.conds {
			names = append(names, n)
		}
		sort.Strings(names)
		return false, fmt.Errorf("unknown condition (kbook adds: %s; testscript has exec:PROG, unix, net, GOOS, GOARCH, ...)", strings.Join(names, ", "))
	}
	ok, _ = c(arg)
	return ok, nil
}

// lookupCondition finds a condition by name, or the family ("api:") whose
// prefix the name starts with.
func (r *Runner) lookupCondition(name string) (Condition, string, bool) {
	if c, ok := r.conds[name]; ok {
		return c, "", true
	}
	if i := strings.Index(name, ":"); i > 0 {
		if c, ok := r.conds[name[:i+1]]; ok && len(name) > i+1 {
			return c, name[i+1:], true
		}
	}
	return nil, "", false
}

func (r *Runner) selected(st *runbook.Step) bool { return r.opts.Filter.MatchStep(st) }

// key computes the cache key of a runbook.
func (r *Runner) key(rb *runbook.Runbook) (cache.Key, error) {
	backend := r.opts.Backend
	if r.opts.Target != nil {
		backend = r.opts.Target.ID()
	}
	k := cache.Key{Kbook: r.opts.KbookID, Backend: backend, Path: filepath.ToSlash(rb.Path), Source: rb.Source,
		Inputs: map[string][]byte{}, Env: r.keyEnv(), Programs: map[string]string{}, Timeout: r.timeout(rb), Shell: rb.ShellPage() != "", ShellPlan: r.shellPlan(rb)}
	for _, p := range rb.Programs() {
		k.Programs[p] = r.programs.identify(p, r.path)
	}
	dir := filepath.Dir(rb.Path)
	for _, pat := range append(append([]string(nil), rb.Meta.Inputs...), rb.Meta.CRDs...) {
		matches, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return k, fmt.Errorf("%s: front matter inputs: bad pattern %q: %v", rb.Path, pat, err)
		}
		if len(matches) == 0 {
			return k, fmt.Errorf("%s: front matter inputs: %q matches no files", rb.Path, pat)
		}
		for _, m := range matches {
			if err := addInput(k.Inputs, m); err != nil {
				return k, fmt.Errorf("%s: front matter inputs: %w", rb.Path, err)
			}
		}
	}
	return k, nil
}

// keyEnv lists the script variables that come from outside kbook: the
// host's that testscript passes through, then --env.
func (r *Runner) keyEnv() []string {
	env := []string{"PATH=" + r.path}
	for _, name := range []string{"GOCOVERDIR", "GORACE"} {
		if v := os.Getenv(name); v != "" {
			env = append(env, name+"="+v)
		}
	}
	return append(env, r.opts.Env...)
}

// timeout is a runbook's time limit.
func (r *Runner) timeout(rb *runbook.Runbook) time.Duration {
	if rb.Meta.Timeout.Duration > 0 {
		return rb.Meta.Timeout.Duration
	}
	return r.opts.Timeout
}

// addInput adds a file, or every file below a directory, to inputs.
func addInput(inputs map[string][]byte, path string) error {
	return filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		inputs[filepath.ToSlash(p)] = data
		return nil
	})
}

func skippedResult(rb *runbook.Runbook, why string) *report.Runbook {
	res := &report.Runbook{Path: rb.Path, Title: rb.Title(), Status: report.Skipped, Reason: why}
	for _, st := range rb.Steps {
		res.Steps = append(res.Steps, &report.Step{Index: st.Index, Name: st.Name, Line: st.Line, Status: report.Skipped, Reason: why})
	}
	return res
}

// lookPath finds prog in the given PATH list.
func lookPath(prog, path string) (string, error) {
	if strings.ContainsRune(prog, filepath.Separator) {
		return exec.LookPath(prog)
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, prog)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
