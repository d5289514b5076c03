package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/atomicfile"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
)

// Child is a running process the supervisor started through a Launcher;
// *proc.Child is one.
type Child interface {
	// Done is closed when the process has exited.
	Done() <-chan struct{}
	// Wait returns how the process exited, once it has.
	Wait() error
	// Stop asks the process to stop (SIGTERM), kills it after grace and
	// waits for it.
	Stop(grace time.Duration) error
}

// Launcher starts cmd as a child that must not outlive kbook: it dies
// with kbook (parent-death signal) and is recorded for the next run's
// sweep. kbook passes its process registry's (Registry); nil means a
// registry that records nothing.
type Launcher func(cmd *exec.Cmd, name string) (Child, error)

// Registry is the Launcher of a process registry (nil: children die with
// kbook but are not recorded).
func Registry(r *proc.Registry) Launcher {
	return func(cmd *exec.Cmd, name string) (Child, error) {
		c, err := r.Start(cmd, name)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}

// Spec describes one process to supervise.
type Spec struct {
	// Name is the process's name in messages and its log file name.
	Name string
	// Path and Args are the program and its arguments.
	Path string
	Args []string
	// Env is added to the supervisor's environment.
	Env []string
	// Ready is polled until it returns nil: the process is then ready.
	// nil: ready once started.
	Ready func(ctx context.Context) error
}

// Supervisor starts processes, one log file each, checks their readiness,
// reports a crash with the tail of the log, restarts a process that exits
// after it was ready (as a kubelet restarts a container: exponential
// backoff, up to a limit; see RestartPolicy) and stops them in reverse
// order. It is safe for concurrent use.
type Supervisor struct {
	logDir string
	launch Launcher
	env    []string
	policy RestartPolicy
	log    log.Logger

	mu       sync.Mutex
	procs    []*supervised
	stopped  bool
	stopCh   chan struct{} // closed by Stop: pending restarts give up
	pending  sync.WaitGroup
	crashes  chan Crash
	restarts []Restart
	notify   chan Restart
	// down is closed when the supervisor first gives up on a process;
	// downErr says which (a *DownError).
	down    chan struct{}
	downErr error
}

type supervised struct {
	spec    Spec
	child   Child
	pid     int
	logPath string
	started time.Time
	stopped bool // stopped on purpose: not a crash
	ready   bool // Start returned: a later exit is a crash
	// early gets the crash of a process that exits before it is ready.
	early chan Crash
	// crashes counts the exits since the process last ran for
	// RestartPolicy.Stable: what the backoff and the limit count.
	crashes int
}

// Crash reports a supervised process that exited on its own.
type Crash struct {
	Name string
	Err  error
	// LogPath is the process's log; Tail its last lines.
	LogPath, Tail string
}

// RestartPolicy says how the supervisor restarts a process that exits
// after it was ready: after Initial, doubling up to Max with each exit in a
// row, at most Limit times in a row (then it stays down and Restart.GaveUp
// says so). A process that ran for Stable before it exited starts the
// count again. Limit < 0 never restarts.
type RestartPolicy struct {
	Initial, Max, Stable time.Duration
	Limit                int
}

// DefaultRestartPolicy is the k0rdent plane's: 1s, 2s, 4s, ... up to 30s, five
// restarts in a row; ten minutes of running forgives the past, as the
// kubelet's CrashLoopBackOff does.
var DefaultRestartPolicy = RestartPolicy{Initial: time.Second, Max: 30 * time.Second, Stable: 10 * time.Minute, Limit: 5}

// backoff is the wait before restart n (1-based).
func (rp RestartPolicy) backoff(n int) time.Duration {
	d := rp.Initial
	for i := 1; i < n && d < rp.Max; i++ {
		d *= 2
	}
	return min(d, rp.Max)
}

// Restart records one exit of a supervised process after it was ready and
// what the supervisor did about it.
type Restart struct {
	Name string    `json:"name"`
	At   time.Time `json:"at"`
	// Exit is how the process exited; Tail the last lines of its log then.
	Exit string `json:"exit"`
	Tail string `json:"tail,omitempty"`
	// Attempt is the restart's number in a row (1 the first); Backoff the
	// wait before it.
	Attempt int           `json:"attempt"`
	Backoff time.Duration `json:"backoff"`
	// Err is why the restarted process did not become ready ("" when it
	// did); GaveUp says the limit was reached and the process stays down.
	Err    string `json:"error,omitempty"`
	GaveUp bool   `json:"gaveUp,omitempty"`
}

func (r Restart) String() string {
	if r.GaveUp {
		return fmt.Sprintf("%s %s exited (%s) after %d restarts in a row: not restarted again", r.At.Format(time.TimeOnly), r.Name, r.Exit, r.Attempt-1)
	}
	msg := fmt.Sprintf("%s %s exited (%s): restart %d after %s", r.At.Format(time.TimeOnly), r.Name, r.Exit, r.Attempt, r.Backoff)
	if r.Err != "" {
		msg += " failed: " + r.Err
	}
	return msg
}

// RestartsFile is the name of the file in the log directory that lists
// the restarts (JSON), for kbook cluster status.
const RestartsFile = "restarts.json"

// Option configures New.
type Option func(*Supervisor)

// WithRestartPolicy sets how exited processes are restarted (default
// DefaultRestartPolicy).
func WithRestartPolicy(rp RestartPolicy) Option {
	return func(s *Supervisor) { s.policy = rp }
}

// WithLogger receives one line per exit and restart, with the log tail.
func WithLogger(l log.Logger) Option {
	return func(s *Supervisor) {
		if l != nil {
			s.log = l
		}
	}
}

func (c Crash) Error() string {
	msg := fmt.Sprintf("%s exited: %v (log %s)", c.Name, c.Err, c.LogPath)
	if c.Tail != "" {
		msg += "\n" + indent(c.Tail)
	}
	return msg
}

// New writes logs to logDir (created if needed); env is the
// environment every process starts with; launch nil means Registry(nil).
func New(logDir string, env []string, launch Launcher, opts ...Option) (*Supervisor, error) {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, fmt.Errorf("supervisor: %w", err)
	}
	if launch == nil {
		launch = Registry(nil)
	}
	s := &Supervisor{logDir: logDir, launch: launch, env: env, crashes: make(chan Crash, 16),
		policy: DefaultRestartPolicy, log: log.NoopLogger{}, stopCh: make(chan struct{}), notify: make(chan Restart, 64), down: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Crashes delivers the processes that exit without being stopped (each
// exit, restarted or not).
func (s *Supervisor) Crashes() <-chan Crash { return s.crashes }

// Restarted delivers each Restart once it is decided: after the restarted
// process is ready (or failed to be), or when the supervisor gave up.
func (s *Supervisor) Restarted() <-chan Restart { return s.notify }

// Down is closed when the supervisor gives up on a process (Restart.GaveUp:
// it exited after RestartPolicy.Limit restarts in a row and stays down);
// DownErr says which. It never closes for processes stopped on purpose.
func (s *Supervisor) Down() <-chan struct{} { return s.down }

// DownErr is the *DownError of the first process the supervisor gave up
// on, or nil while every process is up or being restarted.
func (s *Supervisor) DownErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.downErr
}

// DownError says which process the supervisor gave up on, how it last
// exited, after how many restarts, and the tail of its log.
type DownError struct {
	Name, Exit string
	// Restarts is how many restarts in a row were tried before giving up.
	Restarts int
	LogPath  string
	Tail     string
}

// Error is one line (a runbook's failure reason starts with it); Tail
// goes in diagnostics.
func (e *DownError) Error() string {
	return fmt.Sprintf("%s exited (%s) after %s in a row and stays down (log %s)", e.Name, e.Exit, restartsCount(e.Restarts), e.LogPath)
}

func restartsCount(n int) string {
	if n == 1 {
		return "1 restart"
	}
	return fmt.Sprintf("%d restarts", n)
}

// giveUp records that p stays down after r and closes Down, once; s.mu is
// held.
func (s *Supervisor) giveUp(p *supervised, r Restart) {
	r.GaveUp = true
	s.record(r)
	if s.downErr != nil {
		return
	}
	s.downErr = &DownError{Name: r.Name, Exit: r.Exit, Restarts: r.Attempt - 1, LogPath: p.logPath, Tail: r.LastLines(10)}
	close(s.down)
}

// LastLines is the last n lines of the log tail r carries.
func (r Restart) LastLines(n int) string {
	lines := strings.Split(strings.TrimRight(r.Tail, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Restarts lists the exits and restarts so far, oldest first.
func (s *Supervisor) Restarts() []Restart {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Restart(nil), s.restarts...)
}

// LogDir holds the processes' logs and the restarts file.
func (s *Supervisor) LogDir() string { return s.logDir }

// LogPath is where a process's output goes.
func (s *Supervisor) LogPath(name string) string {
	return filepath.Join(s.logDir, name+".log")
}

// Start starts a process and waits until it is ready, it exits (an error
// with its log tail), ctx ends or timeout passes.
func (s *Supervisor) Start(ctx context.Context, sp Spec, timeout time.Duration) error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return errors.New("supervisor: stopped")
	}
	s.mu.Unlock()
	p := &supervised{spec: sp, logPath: s.LogPath(sp.Name)}
	if err := s.spawn(p, os.O_TRUNC, ""); err != nil {
		return err
	}
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
	return s.awaitReady(ctx, p, timeout)
}

// spawn starts p's program, its output to its log (truncated by the first
// start, appended to by restarts after a header line), and watches it.
func (s *Supervisor) spawn(p *supervised, mode int, header string) error {
	sp := p.spec
	logf, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND|mode, 0o644)
	if err != nil {
		return fmt.Errorf("start %s: %w", sp.Name, err)
	}
	cmd := exec.Command(sp.Path, sp.Args...)
	cmd.Env = append(append(append([]string{}, s.env...), sp.Env...), os.Environ()...)
	cmd.Env = dedupEnv(cmd.Env)
	cmd.Stdout, cmd.Stderr = logf, logf
	if header != "" {
		fmt.Fprintf(logf, "# %s\n", header)
	}
	fmt.Fprintf(logf, "# %s %s\n", sp.Path, strings.Join(sp.Args, " "))
	child, err := s.launch(cmd, sp.Name)
	logf.Close() // the child holds its own descriptor
	if err != nil {
		return fmt.Errorf("start %s: %w", sp.Name, err)
	}
	s.mu.Lock()
	p.child, p.started, p.ready, p.early = child, time.Now(), false, make(chan Crash, 1)
	if cmd.Process != nil {
		p.pid = cmd.Process.Pid
	}
	early := p.early
	s.mu.Unlock()
	go s.watch(p, child, early)
	return nil
}

// awaitReady polls p's readiness until it passes, p exits, ctx ends or
// timeout passes.
func (s *Supervisor) awaitReady(ctx context.Context, p *supervised, timeout time.Duration) error {
	sp := p.spec
	s.mu.Lock()
	child, early := p.child, p.early
	s.mu.Unlock()
	if sp.Ready == nil {
		return s.markReady(p, early)
	}
	deadline := time.Now().Add(timeout)
	var last error
	for {
		select {
		case c := <-early:
			return c
		case <-ctx.Done():
			return fmt.Errorf("start %s: %w", sp.Name, context.Cause(ctx))
		default:
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last = sp.Ready(rctx)
		cancel()
		if last == nil {
			return s.markReady(p, early)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %v (log %s)\n%s", sp.Name, timeout, last, p.logPath, indent(Tail(p.logPath, 15)))
		}
		select {
		case <-child.Done():
		case <-ctx.Done():
		case <-time.After(150 * time.Millisecond):
		}
	}
}

func (s *Supervisor) crash(p *supervised, err error) Crash {
	if err == nil {
		err = errors.New("exit status 0")
	}
	return Crash{Name: p.spec.Name, Err: err, LogPath: p.logPath, Tail: Tail(p.logPath, 20)}
}

// markReady ends Start: from now on an exit is reported on Crashes.
func (s *Supervisor) markReady(p *supervised, early chan Crash) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case c := <-early:
		return c
	default:
	}
	p.ready = true
	return nil
}

// watch reports the exit of p's child unless it was stopped: to Start
// while it waits for readiness, on Crashes after, and then restarts it.
func (s *Supervisor) watch(p *supervised, child Child, early chan Crash) {
	<-child.Done()
	c := s.crash(p, child.Wait())
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.stopped || s.stopped || p.child != child {
		return
	}
	if !p.ready {
		early <- c
		return
	}
	select {
	case s.crashes <- c:
	default:
	}
	if time.Since(p.started) >= s.policy.Stable && s.policy.Stable > 0 {
		p.crashes = 0
	}
	p.crashes++
	r := Restart{Name: p.spec.Name, At: time.Now(), Exit: c.Err.Error(), Tail: c.Tail, Attempt: p.crashes}
	if s.policy.Limit < 0 || p.crashes > s.policy.Limit {
		// Logged first: whoever hears of it (Restarted, Down) finds it logged.
		s.log.Infof("%s exited (%s) after %d restarts in a row: not restarting it again (log %s):\n%s", r.Name, r.Exit, r.Attempt-1, p.logPath, indent(r.Tail))
		s.giveUp(p, r)
		return
	}
	r.Backoff = s.policy.backoff(p.crashes)
	s.log.Infof("%s exited (%s): restart %d/%d in %s (log %s):\n%s", r.Name, r.Exit, r.Attempt, s.policy.Limit, r.Backoff, p.logPath, indent(r.Tail))
	s.pending.Add(1)
	go s.restart(p, r)
}

// restart starts p again after r.Backoff, unless the supervisor stops
// first, and waits until it is ready. A restart that fails (the process
// exits again, or is not ready within a minute) counts as another exit.
// Stop waits for it (s.pending): the child it starts is the one Stop stops.
func (s *Supervisor) restart(p *supervised, r Restart) {
	defer s.pending.Done()
	select {
	case <-s.stopCh:
		return
	case <-time.After(r.Backoff):
	}
	err := s.spawn(p, 0, fmt.Sprintf("restart %d at %s after %s", r.Attempt, time.Now().Format(time.RFC3339), r.Exit))
	if err == nil {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-s.stopCh:
				cancel()
			case <-ctx.Done():
			}
		}()
		err = s.awaitReady(ctx, p, time.Minute)
		cancel()
		if err != nil {
			s.mu.Lock()
			child := p.child
			s.mu.Unlock()
			_ = child.Stop(5 * time.Second)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	if err == nil {
		s.log.Infof("%s restarted (restart %d) and ready", r.Name, r.Attempt)
		s.record(r)
		return
	}
	r.Err = err.Error()
	s.log.Infof("restart %d of %s failed: %v", r.Attempt, r.Name, err)
	s.record(r)
	p.crashes++
	next := Restart{Name: r.Name, At: time.Now(), Exit: "restart failed", Tail: Tail(p.logPath, 20), Attempt: p.crashes}
	if p.crashes > s.policy.Limit {
		s.log.Infof("%s: %d restarts in a row failed: not restarting it again (log %s)", r.Name, r.Attempt, p.logPath)
		s.giveUp(p, next)
		return
	}
	next.Backoff = s.policy.backoff(p.crashes)
	s.pending.Add(1)
	go s.restart(p, next)
}

// record keeps r, writes the restarts file and announces r; s.mu is held.
func (s *Supervisor) record(r Restart) {
	s.restarts = append(s.restarts, r)
	if data, err := json.MarshalIndent(s.restarts, "", "  "); err == nil {
		_ = atomicfile.Write(filepath.Join(s.logDir, RestartsFile), append(data, '\n'))
	}
	select {
	case s.notify <- r:
	default:
	}
}

// ReadRestarts reads the restarts file a supervisor keeps in logDir (none:
// no restarts).
func ReadRestarts(logDir string) ([]Restart, error) {
	data, err := os.ReadFile(filepath.Join(logDir, RestartsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rs []Restart
	if err := json.Unmarshal(data, &rs); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(logDir, RestartsFile), err)
	}
	return rs, nil
}

// Running lists the processes that run, in start order.
func (s *Supervisor) Running() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range s.procs {
		select {
		case <-p.child.Done():
		default:
			out = append(out, p.spec.Name)
		}
	}
	return out
}

// PIDs maps the running processes to their process ids.
func (s *Supervisor) PIDs() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, p := range s.procs {
		select {
		case <-p.child.Done():
		default:
			out[p.spec.Name] = p.pid
		}
	}
	return out
}

// Stop stops every process, the last started first, each with grace to
// exit after SIGTERM before it is killed.
func (s *Supervisor) Stop(grace time.Duration) error {
	s.mu.Lock()
	if !s.stopped {
		close(s.stopCh)
	}
	s.stopped = true
	s.mu.Unlock()
	// A restart under way has its child set (or gives up) before this.
	s.pending.Wait()
	s.mu.Lock()
	procs := append([]*supervised(nil), s.procs...)
	children := make([]Child, len(procs))
	for i, p := range procs {
		p.stopped = true
		children[i] = p.child
	}
	s.mu.Unlock()
	var errs []error
	for i := len(procs) - 1; i >= 0; i-- {
		if err := children[i].Stop(grace); err != nil {
			errs = append(errs, fmt.Errorf("stop %s: %w", procs[i].spec.Name, err))
		}
	}
	return errors.Join(errs...)
}

// Tail returns the last n lines of a file.
func Tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	const max = 64 << 10
	if len(data) > max {
		data = data[len(data)-max:]
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string {
	if s == "" {
		return s
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// dedupEnv keeps the first value of each variable.
func dedupEnv(env []string) []string {
	seen := map[string]bool{}
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, kv)
	}
	return out
}
