package plane

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

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
// reports a crash with the tail of the log and stops them in reverse
// order. It is safe for concurrent use.
type Supervisor struct {
	logDir string
	launch Launcher
	env    []string

	mu      sync.Mutex
	procs   []*supervised
	stopped bool
	crashes chan Crash
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
}

// Crash reports a supervised process that exited on its own.
type Crash struct {
	Name string
	Err  error
	// LogPath is the process's log; Tail its last lines.
	LogPath, Tail string
}

func (c Crash) Error() string {
	msg := fmt.Sprintf("%s exited: %v (log %s)", c.Name, c.Err, c.LogPath)
	if c.Tail != "" {
		msg += "\n" + indent(c.Tail)
	}
	return msg
}

// NewSupervisor writes logs to logDir (created if needed); env is the
// environment every process starts with; launch nil means Registry(nil).
func NewSupervisor(logDir string, env []string, launch Launcher) (*Supervisor, error) {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, fmt.Errorf("supervisor: %w", err)
	}
	if launch == nil {
		launch = Registry(nil)
	}
	return &Supervisor{logDir: logDir, launch: launch, env: env, crashes: make(chan Crash, 16)}, nil
}

// Crashes delivers the processes that exit without being stopped.
func (s *Supervisor) Crashes() <-chan Crash { return s.crashes }

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
	logPath := s.LogPath(sp.Name)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("start %s: %w", sp.Name, err)
	}
	cmd := exec.Command(sp.Path, sp.Args...)
	cmd.Env = append(append(append([]string{}, s.env...), sp.Env...), os.Environ()...)
	cmd.Env = dedupEnv(cmd.Env)
	cmd.Stdout, cmd.Stderr = logf, logf
	fmt.Fprintf(logf, "# %s %s\n", sp.Path, strings.Join(sp.Args, " "))
	child, err := s.launch(cmd, sp.Name)
	logf.Close() // the child holds its own descriptor
	if err != nil {
		return fmt.Errorf("start %s: %w", sp.Name, err)
	}
	p := &supervised{spec: sp, child: child, logPath: logPath, started: time.Now(), early: make(chan Crash, 1)}
	if cmd.Process != nil {
		p.pid = cmd.Process.Pid
	}
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
	go s.watch(p)

	if sp.Ready == nil {
		return s.markReady(p)
	}
	deadline := time.Now().Add(timeout)
	var last error
	for {
		select {
		case c := <-p.early:
			return c
		case <-ctx.Done():
			return fmt.Errorf("start %s: %w", sp.Name, context.Cause(ctx))
		default:
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last = sp.Ready(rctx)
		cancel()
		if last == nil {
			return s.markReady(p)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %v (log %s)\n%s", sp.Name, timeout, last, logPath, indent(Tail(logPath, 15)))
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
func (s *Supervisor) markReady(p *supervised) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case c := <-p.early:
		return c
	default:
	}
	p.ready = true
	return nil
}

// watch reports p's exit unless it was stopped: to Start while it waits
// for readiness, on Crashes after.
func (s *Supervisor) watch(p *supervised) {
	<-p.child.Done()
	c := s.crash(p, p.child.Wait())
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.stopped || s.stopped {
		return
	}
	if !p.ready {
		p.early <- c
		return
	}
	select {
	case s.crashes <- c:
	default:
	}
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
	s.stopped = true
	procs := append([]*supervised(nil), s.procs...)
	for _, p := range procs {
		p.stopped = true
	}
	s.mu.Unlock()
	var errs []error
	for i := len(procs) - 1; i >= 0; i-- {
		if err := procs[i].child.Stop(grace); err != nil {
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

// FreePorts reserves n distinct free TCP ports on 127.0.0.1. They are
// released before returning, so another process could take one in
// between; the supervisor's readiness check then fails with the log.
func FreePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
