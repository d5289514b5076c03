package runner

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/atomicfile"
	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/mask"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
)

// execKey is the Env.Values key under which Setup hands the running
// execution to kbook's commands.
type execKey struct{}

// ContextKey is the Env.Values key of the run's context.Context, for
// commands that wait (they must stop when the run is cancelled).
type ContextKey struct{}

// ProgressKey is the Env.Values key of a func(msg string) that commands
// which wait call to say so while the runbook runs (see Progresser).
type ProgressKey struct{}

// execution is one runbook being run.
type execution struct {
	r    *Runner
	ws   *workspace
	rb   *runbook.Runbook
	plan *plan
	// alone is why the runbook runs alone on the run's cluster, "" when
	// it shares it (AloneKey).
	alone  string
	ctx    context.Context
	masker *mask.Masker
	// cmdCtx is ctx with the runbook's deadline, for kbook's commands.
	cmdCtx context.Context

	mu      sync.Mutex
	session Session // from the Target, nil without one
	workdir string
	fired   []time.Time // marker fire time per command; zero: did not run
	ends    []time.Time
	rec     []capture  // output recorded when the next marker fired
	empty   [][]string // per command: the variables it names that were empty
	last    int        // last fired command, -1 before the first
	// finished is true once the end marker ran: the script was not
	// cut short by stop.
	finished bool
	// envKeys are the script's variables when Setup ends: the page's
	// bash session starts with their values then.
	envKeys []string
	// given is what the page's bash session was given of the script's
	// variables (envKeys and plan.envNames), and scriptRan whether a
	// testscript command ran since its last block: envChanges gives it
	// what changed. Only the script's goroutine uses them.
	given     map[string]string
	scriptRan bool
	// sh is the page's bash session once its first shell block ran (or
	// shErr why it could not start); shellRes the shell steps' outcomes.
	// early, when set, delivers the session startEarly starts.
	early    chan *shellSession
	sh       *shellSession
	shErr    error
	shellRes map[*runbook.Step]shellRes
	// outputs are, under --update, what exact-mode shell blocks
	// printed where it differed from the page's expected output.
	outputs map[*runbook.Step]string
	// pageSh is what the page's blocks that did not run would have
	// left, for their dependants; only the script's goroutine uses it.
	pageSh *pageShell
	// funcs are the functions and aliases the page's blocks define
	// (pageFuncs); only the script's goroutine uses it.
	funcs map[string]bool
	// expects are the shell steps' outputs for batches (expect); only
	// the script's goroutine uses it.
	expects map[*runbook.Step]*string
	// written counts the page's bound files (runbook.File.By) that the
	// shell blocks before have written where the page's commands were
	// (writeBound); only the script's goroutine uses it.
	written int
}

// capture is what a command printed, as testscript kept it.
type capture struct {
	stdout, stderr string
	known          bool
}

var initTesting sync.Once

// run executes the runbook's selected steps and returns its result.
func (x *execution) run() *report.Runbook {
	// testscript's [short] condition asks the testing package, which
	// panics unless its flags are registered.
	initTesting.Do(testing.Init)

	start := time.Now()
	res := &report.Runbook{Path: x.rb.Path, Title: x.rb.Title(), Verified: start}
	for _, f := range x.rb.Files {
		if f.By != "" {
			res.Bindings = append(res.Bindings, report.Binding{Line: f.Line, Lang: f.Block.Lang, File: f.Name, By: f.By})
		}
	}
	if x.plan.shell {
		x.startEarly()
		defer x.closeShell()
	}
	root, err := x.ws.dir()
	if err != nil {
		return failed(res, fmt.Sprintf("create work directory: %v", err))
	}
	script, name, closeScript, err := x.ws.script(x.rb.Path, x.plan.archive)
	if err != nil {
		return failed(res, fmt.Sprintf("write script: %v", err))
	}
	defer closeScript()
	// testscript's $WORK for the script.
	work := filepath.Join(root, "script-"+name)
	removed := false
	if x.r.opts.KeepWork {
		res.WorkDir = work
	} else {
		defer func() {
			if !removed {
				os.RemoveAll(work)
			}
		}()
	}
	n := len(x.plan.cmds)
	x.shellRes, x.outputs = map[*runbook.Step]shellRes{}, map[*runbook.Step]string{}
	x.fired, x.ends, x.rec, x.empty, x.last = make([]time.Time, n), make([]time.Time, n), make([]capture, n), make([][]string, n), -1

	timeout := x.r.timeout(x.rb)
	deadline := start.Add(timeout)
	// kbook's own commands (await, assert) stop at the deadline too.
	cmdCtx, cancelCmds := context.WithDeadline(x.ctx, deadline)
	defer cancelCmds()
	if b, ok := x.r.opts.Target.(Breakable); ok {
		// A lost cluster ends kbook's commands at once, with the reason.
		var cancelLost context.CancelCauseFunc
		cmdCtx, cancelLost = context.WithCancelCause(cmdCtx)
		go func() {
			select {
			case <-b.Broken():
				cancelLost(b.BrokenErr())
				if x.usesTarget() {
					// The programs it execs (kubectl wait) would
					// wait out their own timeouts: end them too.
					proc.KillDescendantsIn(work)
				}
			case <-cmdCtx.Done():
			}
		}()
		defer cancelLost(nil)
	}
	x.cmdCtx = cmdCtx
	t := &scriptT{}
	params := testscript.Params{
		Files:              []string{script},
		WorkdirRoot:        root,
		Setup:              x.setup,
		Condition:          x.r.condition,
		Cmds:               x.r.cmds,
		UpdateScripts:      x.r.opts.Update,
		RequireUniqueNames: true,
		Deadline:           testscriptDeadline(start, timeout),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		testscript.RunT(t, params)
	}()
	timedOut := false
	select {
	case <-done:
	case <-time.After(time.Until(deadline) + 30*time.Second):
		// testscript kills exec'd commands at the deadline; a command
		// that ignores it is abandoned so the run can go on.
		timedOut = true
	}
	// The page's bash session and what it left running end with the
	// script (or its time limit); the deferred closeShell waits for
	// bash, once the rest is done.
	x.killShell()
	if !x.r.opts.KeepWork {
		// Nothing reads $WORK from here: it goes while the result is
		// made, and the run waits for it before it ends.
		x.ws.removeLater(work)
		removed = true
	}
	end := time.Now()
	res.Duration = end.Sub(start)
	if !timedOut && time.Now().After(deadline) {
		timedOut = true
	}
	x.mu.Lock()
	if x.last >= 0 && x.ends[x.last].IsZero() {
		x.ends[x.last] = end
	}
	x.mu.Unlock()

	log, tFailed, skipped, skipMsg := t.result()
	x.fill(res, log, tFailed, skipped)
	// testscript's context ends commands a little before the deadline, to
	// leave time to report; its message says so.
	if res.Failure != nil && res.Failure.Message == "test timed out while running command" {
		timedOut = true
	}
	switch {
	case skipped:
		res.Status, res.Reason = report.Skipped, "skipped by the script: "+strings.TrimSpace(skipMsg)
	case timedOut && res.Status == report.Failed:
		res.Reason = fmt.Sprintf("timed out after %s: %s", timeout, res.Reason)
	}
	if err := x.r.broken(); err != nil {
		switch {
		case res.Status == report.Failed && !strings.Contains(res.Reason, err.Error()):
			res.Reason = err.Error() + ": " + res.Reason
		case res.Status == report.Passed && x.usesTarget():
			// Its commands ran while the server went away: a negated
			// command that failed for that reason would make it pass.
			failed(res, err.Error()+": the runbook ran while the cluster went away; its result cannot be trusted")
		}
	}
	if x.ctx.Err() != nil && res.Status == report.Failed {
		// Before closeSession: an interrupted runbook needs no
		// diagnostics, and the run is ending.
		markInterrupted(res)
	}
	x.closeSession(res)
	if x.r.opts.Update && res.Status == report.Passed {
		if err := x.update(res, script); err != nil {
			return failed(res, err.Error())
		}
	}
	return res
}

// usesTarget reports whether the runbook prepared a session of the
// run's target (it ran against the cluster).
func (x *execution) usesTarget() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.session != nil
}

// lostTarget is why the target this runbook uses was lost, or nil; it
// only looks at Broken, so it is cheap enough for every command.
func (x *execution) lostTarget() error {
	b, ok := x.r.opts.Target.(Breakable)
	if !ok || !x.usesTarget() {
		return nil
	}
	select {
	case <-b.Broken():
		return b.BrokenErr()
	default:
		return nil
	}
}

// testscriptDeadline is the Params.Deadline that makes testscript stop
// commands at start+timeout: it stops them two grace periods before the
// deadline it is given, a grace period being 5% of the time left or 100ms,
// whichever is longer (go-internal testscript.RunT). Passing start+timeout
// itself stopped a 3s runbook at 2.7s.
func testscriptDeadline(start time.Time, timeout time.Duration) time.Time {
	const minGrace = 100 * time.Millisecond
	padded := timeout * 10 / 9 // T - 2*T/20 = timeout
	if padded/20 < minGrace {
		padded = timeout + 2*minGrace
	}
	return start.Add(padded)
}

// closeSession collects diagnostics of a failed runbook and releases its
// cluster resources, also after Ctrl-C (with a fresh time limit).
func (x *execution) closeSession(res *report.Runbook) {
	x.mu.Lock()
	s := x.session
	x.mu.Unlock()
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(x.ctx), 2*time.Minute)
	defer cancel()
	if res.Status == report.Failed {
		res.Diagnostics = x.masker.Mask(s.Diagnose(ctx))
	}
	if err := s.Close(ctx); err != nil {
		x.r.obs.Warn(fmt.Sprintf("%s: cleanup: %v", x.rb.Path, err))
	}
	if rs, ok := s.(Restorer); ok {
		res.Restored = rs.Restored()
	}
}

// setup prepares the script environment: it runs after testscript has
// extracted the archive into $WORK.
func (x *execution) setup(env *testscript.Env) error {
	x.mu.Lock()
	x.workdir = env.WorkDir
	x.mu.Unlock()
	env.Values[execKey{}] = x
	env.Values[ContextKey{}] = x.cmdCtx
	env.Values[ProgressKey{}] = x.progress
	for _, f := range x.plan.extra {
		if err := writeFile(env.WorkDir, f); err != nil {
			return err
		}
	}
	dir, err := filepath.Abs(filepath.Dir(x.rb.Path))
	if err != nil {
		return err
	}
	env.Setenv("RUNBOOK_DIR", dir)
	env.Setenv("RUNBOOK", x.rb.Path)
	env.Setenv("PATH", x.r.path)
	if d := x.r.opts.CacheDir; d != "" {
		env.Setenv(cache.EnvDir, d)
	}
	for _, kv := range x.r.opts.Env {
		k, v, _ := strings.Cut(kv, "=")
		env.Setenv(k, v)
	}
	if t := x.r.opts.Target; t != nil {
		// Its context is the commands': the client it makes for
		// await and assert stops with them (deadline, lost cluster).
		if x.alone != "" {
			env.Values[AloneKey{}] = x.alone
		}
		s, err := t.Prepare(x.cmdCtx, x.rb, env)
		if err != nil {
			return fmt.Errorf("prepare cluster: %w", err)
		}
		x.mu.Lock()
		x.session = s
		x.mu.Unlock()
		if h, ok := s.(SecretHolder); ok {
			x.masker.AddLiterals(h.Secrets()...)
		}
	}
	if hasShell(x.rb) {
		// A page's shell blocks and its testscript blocks share a home
		// of the runbook's own (testscript's is /no-home).
		home := filepath.Join(env.WorkDir, ".home")
		if err := os.MkdirAll(home, 0o755); err != nil {
			return err
		}
		env.Setenv("HOME", home)
	}
	x.masker.AddLiterals(mask.SecretValues(env.Vars)...)
	seen := map[string]bool{}
	for _, kv := range env.Vars {
		if k, _, ok := strings.Cut(kv, "="); ok && !seen[k] {
			seen[k] = true
			x.envKeys = append(x.envKeys, k)
		}
	}
	return nil
}

// writeFile writes a runbook's file f below dir, making its folders.
func writeFile(dir string, f *runbook.File) error {
	p := filepath.Join(dir, filepath.FromSlash(f.Name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(f.Content), 0o644)
}

// hasShell reports whether a runbook runs shell blocks.
func hasShell(rb *runbook.Runbook) bool {
	for _, st := range rb.Steps {
		if st.Shell != nil {
			return true
		}
	}
	return false
}

// progress passes a waiting command's message to the observer, at the
// command's runbook line.
func (x *execution) progress(msg string) {
	p, ok := x.r.obs.(Progresser)
	if !ok {
		return
	}
	x.mu.Lock()
	line := 0
	if x.last >= 0 {
		line = x.plan.cmds[x.last].line.Num
	}
	x.mu.Unlock()
	p.Progress(x.rb, line, x.masker.Mask(msg))
}

// marker is the command behind every inserted marker line.
func marker(ts *testscript.TestScript, neg bool, args []string) {
	x, _ := ts.Value(execKey{}).(*execution)
	if x == nil || len(args) != 2 || args[0] != x.plan.nonce {
		ts.Fatalf("%s is reserved for kbook", markerCmd)
	}
	id, err := strconv.Atoi(args[1])
	if err != nil || id < 0 || id > len(x.plan.cmds) {
		ts.Fatalf("%s: bad marker %q", markerCmd, args[1])
	}
	now := time.Now()
	var empty []string
	if id < len(x.plan.cmds) && x.plan.cmds[id].step.Shell == nil {
		empty = emptyVars(ts, x.plan.cmds[id].line.Text)
	}
	x.mu.Lock()
	if x.last >= 0 {
		x.rec[x.last] = capture{stdout: ts.ReadFile("stdout"), stderr: ts.ReadFile("stderr"), known: true}
		x.ends[x.last] = now
	}
	if id == len(x.plan.cmds) { // the end marker
		x.finished = true
		x.mu.Unlock()
		return
	}
	x.fired[id], x.last, x.empty[id] = now, id, empty
	x.mu.Unlock()
	if x.plan.cmds[id].step.Shell == nil {
		x.scriptRan = true
	}
	if err := x.lostTarget(); err != nil {
		// The cluster is gone: the next command would only fail
		// against it (or pass, negated).
		ts.Fatalf("%v", err)
	}
	if c := x.plan.cmds[id]; c.first {
		x.r.obs.StepStarted(x.rb, c.step)
	}
}

// update writes cmp targets that testscript refreshed, and the output of
// exact-mode shell blocks that differed from the page's, back into the
// runbook.
func (x *execution) update(res *report.Runbook, script string) error {
	data, err := os.ReadFile(script)
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	changed := map[string]string{}
	for _, f := range txtar.Parse(data).Files {
		old, ok := x.plan.archived[f.Name]
		if !ok {
			continue
		}
		// txtar cannot hold content without a final newline (Format
		// adds one) and quotes some: where a cmp against stdout or
		// stderr made the update, take what the command printed.
		text, exact := x.cmpSource(f.Name)
		switch {
		case exact && text == old:
			continue
		case !exact && string(f.Data) == txtarData(old):
			continue
		case !exact:
			text = string(f.Data)
		}
		changed[f.Name] = text
		res.Updated = append(res.Updated, f.Name)
	}
	x.mu.Lock()
	outputs := maps.Clone(x.outputs)
	x.mu.Unlock()
	for _, st := range x.rb.Steps {
		if _, ok := outputs[st]; ok {
			res.Updated = append(res.Updated, fmt.Sprintf("the expected output at line %d", st.Shell.Expected.Line))
		}
	}
	if len(changed) == 0 && len(outputs) == 0 {
		return nil
	}
	src, err := x.rb.Update(changed, outputs)
	if err != nil {
		return err
	}
	return atomicfile.Write(x.rb.Path, src)
}

// txtarData is how txtar.Format stores a file's content.
func txtarData(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

// cmpSource returns, for the last command that ran "cmp stdout NAME" or
// "cmp stderr NAME", what stdout or stderr held then: the text testscript's
// --update put into NAME.
func (x *execution) cmpSource(name string) (string, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for id := len(x.plan.cmds) - 1; id >= 0; id-- {
		words := strings.Fields(x.plan.cmds[id].line.Text)
		for len(words) > 0 && strings.HasPrefix(words[0], "[") {
			words = words[1:]
		}
		if len(words) != 3 || words[0] != "cmp" || words[2] != name || x.fired[id].IsZero() || !x.rec[id].known {
			continue
		}
		switch words[1] {
		case "stdout":
			return x.rec[id].stdout, true
		case "stderr":
			return x.rec[id].stderr, true
		}
		return "", false
	}
	return "", false
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func scriptName(p string) string {
	return unsafeName.ReplaceAllString(strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)), "_")
}

// markInterrupted reports a runbook that failed because the run was
// interrupted (Ctrl-C, SIGTERM: the command running was stopped) as
// interrupted, not failed: the step that was running is interrupted, the
// steps after it not run. The failure keeps its place (the line of the
// command stopped) and the log is kept.
func markInterrupted(res *report.Runbook) {
	reason := "interrupted"
	for _, st := range res.Steps {
		for _, c := range st.Commands {
			if c.Failed {
				reason = "interrupted while running " + c.Text
			}
		}
	}
	res.Status, res.Reason = report.Interrupted, reason
	if res.Failure != nil {
		f := *res.Failure
		f.Message = reason
		res.Failure = &f
	}
	for _, st := range res.Steps {
		switch {
		case st.Status == report.Failed:
			st.Status, st.Reason = report.Interrupted, reason
			if st.Failure != nil {
				f := *st.Failure
				f.Message = reason
				st.Failure = &f
			}
		case st.Status == report.Skipped && strings.HasPrefix(st.Reason, "not run: an earlier step"):
			st.Reason = "not run: the run was interrupted"
		}
	}
}

func failed(res *report.Runbook, reason string) *report.Runbook {
	res.Status, res.Reason = report.Failed, reason
	res.Failure = &report.Failure{File: res.Path, Message: reason}
	return res
}

// scriptT implements testscript.T outside `go test`. FailNow and SkipNow
// end the calling goroutine, as in the testing package, so Run starts each
// script in a goroutine of its own.
type scriptT struct {
	mu      sync.Mutex
	log     strings.Builder
	failed  bool
	skipped bool
	skipMsg string
}

func (t *scriptT) Skip(args ...any) {
	t.mu.Lock()
	t.skipped, t.skipMsg = true, fmt.Sprint(args...)
	t.mu.Unlock()
	runtime.Goexit()
}

func (t *scriptT) Fatal(args ...any) {
	t.Log(args...)
	t.FailNow()
}

func (t *scriptT) Parallel() {}

func (t *scriptT) Log(args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := fmt.Sprint(args...)
	t.log.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		t.log.WriteByte('\n')
	}
}

func (t *scriptT) FailNow() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
	runtime.Goexit()
}

func (t *scriptT) Run(name string, f func(testscript.T)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				t.Log(fmt.Sprintf("panic in %s: %v\n%s", name, r, debug.Stack()))
				t.mu.Lock()
				t.failed = true
				t.mu.Unlock()
			}
		}()
		f(t)
	}()
	<-done
}

// Verbose keeps the whole log: the runner splits it into commands.
func (t *scriptT) Verbose() bool { return true }

func (t *scriptT) result() (log string, failed, skipped bool, skipMsg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.log.String(), t.failed, t.skipped, t.skipMsg
}
