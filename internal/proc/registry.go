package proc

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/atomicfile"
)

// FormatVersion is the version of the records' layout; Sweep leaves
// registries of another version alone.
const FormatVersion = 1

// Record file names in a registry directory.
const (
	ownerFile  = "owner.json"
	procPrefix = "p-"
	dirPrefix  = "d-"
	extPrefix  = "x-"
	tmpDir     = "tmp"
	binDir     = "bin"
	newPrefix  = ".new-"
)

// owner is the content of owner.json.
type owner struct {
	Format  int       `json:"format"`
	Owner   Process   `json:"owner"`
	Args    []string  `json:"args,omitempty"`
	Started time.Time `json:"started"`
}

// dirRecord is the content of a d-*.json record.
type dirRecord struct {
	Path string `json:"path"`
}

// An External is something kbook made outside its process tree that must
// go when kbook does - a kind cluster, a container network: recorded like
// a child, and ended by the sweep of a later run through the Reaper
// registered for its Kind (RegisterReaper).
type External struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

func (e External) String() string { return e.Kind + " " + e.Name }

func extRecordName(e External) string {
	sum := sha256.Sum256([]byte(e.Kind + "\x00" + e.Name))
	return extPrefix + hex.EncodeToString(sum[:8]) + ".json"
}

// A Reaper ends an External of its kind whose kbook died: nil once it is
// gone (or was never made).
type Reaper func(name string) error

var (
	reapersMu sync.Mutex
	reapers   = map[string]Reaper{}
)

// RegisterReaper says how to end the Externals of kind. The package that
// makes them registers it at init, so that any kbook that sweeps can end
// them.
func RegisterReaper(kind string, r Reaper) {
	reapersMu.Lock()
	defer reapersMu.Unlock()
	reapers[kind] = r
}

func reaperFor(kind string) Reaper {
	reapersMu.Lock()
	defer reapersMu.Unlock()
	return reapers[kind]
}

// TrackExternal records e before it is made, so that a kill -9 at any
// point leaves a record a later run ends it by.
func (r *Registry) TrackExternal(e External) error {
	if r == nil {
		return nil
	}
	return r.writeRecord(extRecordName(e), e)
}

// ForgetExternal removes e's record once kbook has ended it itself (or
// leaves it to the user: a cluster kept with --keep-cluster).
func (r *Registry) ForgetExternal(e External) {
	if r == nil {
		return
	}
	r.removeRecord(extRecordName(e))
}

// ExternalOwner returns the running process, other than r's, whose
// registry beside r's records e: the kbook that made e and ends it when it
// ends (a kind cluster of another kbook run). ok is false when none does.
func (r *Registry) ExternalOwner(e External) (p Process, ok bool) {
	if r == nil {
		return Process{}, false
	}
	return externalOwner(filepath.Dir(r.dir), r.dir, e)
}

// externalOwner is ExternalOwner for the registries below root but the one
// in dir.
func externalOwner(root, dir string, e External) (Process, bool) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return Process{}, false
	}
	for _, d := range entries {
		other := filepath.Join(root, d.Name())
		if !d.IsDir() || other == dir || strings.HasPrefix(d.Name(), newPrefix) {
			continue
		}
		if _, err := os.Stat(filepath.Join(other, extRecordName(e))); err != nil {
			continue
		}
		if o, err := readOwner(other); err == nil && o.Owner.Running() {
			return o.Owner, true
		}
	}
	return Process{}, false
}

// Registry records what one process started. Its methods are safe for
// concurrent use, and a nil *Registry is valid: it starts processes
// without recording them and tracks nothing, for library users and tests
// that have no state directory.
type Registry struct {
	dir   string
	owner Process
	exe   string

	// goWrapper makes Wrap use the Go wrapper mode even where setpriv
	// would do (tests of both).
	goWrapper bool

	mu     sync.Mutex
	closed bool // no more records

	closeMu sync.Mutex
	ended   bool // Close is done
}

// Option configures Open.
type Option func(*Registry)

// WithExecutable names the program the Wrap wrapper runs; it must call
// RunWrapper first thing in main. The default is this process's
// executable.
func WithExecutable(path string) Option { return func(r *Registry) { r.exe = path } }

// Open creates the registry of the calling process below root.
func Open(root string, opts ...Option) (*Registry, error) {
	self, err := Self()
	if err != nil {
		return nil, err
	}
	r := &Registry{owner: self}
	for _, o := range opts {
		o(r)
	}
	if r.exe == "" {
		if r.exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("process registry: %w", err)
		}
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("process registry: %w", err)
	}
	// Build it under a temporary name so Sweep never sees a registry
	// without its owner record.
	tmp, err := os.MkdirTemp(root, newPrefix)
	if err != nil {
		return nil, fmt.Errorf("process registry: %w", err)
	}
	data, _ := json.MarshalIndent(owner{Format: FormatVersion, Owner: self, Args: os.Args, Started: time.Now()}, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, ownerFile), append(data, '\n'), 0o600); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("process registry: %w", err)
	}
	if err := os.Mkdir(filepath.Join(tmp, tmpDir), 0o700); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("process registry: %w", err)
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	r.dir = filepath.Join(root, fmt.Sprintf("%d-%d-%s", self.PID, self.Start, hex.EncodeToString(b)))
	if err := os.Rename(tmp, r.dir); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("process registry: %w", err)
	}
	return r, nil
}

// Dir is the registry's directory ("" for a nil registry).
func (r *Registry) Dir() string {
	if r == nil {
		return ""
	}
	return r.dir
}

// Owner is the process the registry belongs to.
func (r *Registry) Owner() Process {
	if r == nil {
		return Process{}
	}
	return r.owner
}

func (r *Registry) writeRecord(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("process registry %s is closed", r.dir)
	}
	return atomicfile.Write(filepath.Join(r.dir, name), append(data, '\n'))
}

func (r *Registry) removeRecord(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		_ = os.Remove(filepath.Join(r.dir, name))
	}
}

func procRecord(pid int) string { return procPrefix + strconv.Itoa(pid) + ".json" }

func dirRecordName(path string) string {
	h := sha256.Sum256([]byte(path))
	return dirPrefix + hex.EncodeToString(h[:8]) + ".json"
}

// Track records a process started by other means; Forget drops it.
func (r *Registry) Track(p Process) error {
	if r == nil {
		return nil
	}
	if err := r.writeRecord(procRecord(p.PID), p); err != nil {
		return fmt.Errorf("record %s: %w", p, err)
	}
	return nil
}

// Forget drops the record of a process that ended.
func (r *Registry) Forget(pid int) {
	if r != nil {
		r.removeRecord(procRecord(pid))
	}
}

// MkdirTemp makes a new private directory (mode 0700) inside the registry
// (see os.MkdirTemp for pattern); it is removed at the latest when the
// registry is closed or swept. Without a registry it is made in
// os.TempDir() and the caller alone removes it.
func (r *Registry) MkdirTemp(pattern string) (string, error) {
	if r == nil {
		return os.MkdirTemp("", pattern)
	}
	return os.MkdirTemp(filepath.Join(r.dir, tmpDir), pattern)
}

// TrackDir records a directory outside the registry that must not outlive
// the owner (a work directory holding credentials); ForgetDir drops it
// once the owner removed it or means to keep it.
func (r *Registry) TrackDir(path string) error {
	if r == nil {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if err := r.writeRecord(dirRecordName(abs), dirRecord{Path: abs}); err != nil {
		return fmt.Errorf("record directory %s: %w", abs, err)
	}
	return nil
}

// ForgetDir drops the record of a directory.
func (r *Registry) ForgetDir(path string) {
	if r == nil {
		return
	}
	if abs, err := filepath.Abs(path); err == nil {
		r.removeRecord(dirRecordName(abs))
	}
}

// Child is a process started by Registry.Start.
type Child struct {
	Cmd     *exec.Cmd
	Process Process

	r    *Registry
	done chan struct{}
	err  error
}

// Start starts cmd as a child that dies with this process (see the package
// doc), records it, and forgets it once it has exited. The caller must not
// call cmd.Wait: use Child.Wait or Child.Done.
func (r *Registry) Start(cmd *exec.Cmd, name string) (*Child, error) {
	applyChildAttr(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &Child{Cmd: cmd, r: r, done: make(chan struct{})}
	p, err := Inspect(cmd.Process.Pid)
	if err != nil { // it exited already; nothing is left to kill
		p = Process{PID: cmd.Process.Pid}
	}
	if p.Exe == "" {
		p.Exe = cmd.Path
	}
	p.Name = name
	c.Process = p
	recErr := r.Track(p)
	go func() {
		c.err = cmd.Wait()
		r.Forget(p.PID)
		close(c.done)
	}()
	if recErr != nil {
		_ = c.Stop(0)
		return nil, recErr
	}
	return c, nil
}

// applyChildAttr sets the per-OS process attributes of childAttr on cmd,
// keeping other attributes the caller set.
func applyChildAttr(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = childAttr()
		return
	}
	mergeChildAttr(cmd.SysProcAttr)
}

// Done is closed when the child has exited.
func (c *Child) Done() <-chan struct{} { return c.done }

// Wait waits for the child to exit and returns what exec.Cmd.Wait did.
func (c *Child) Wait() error {
	<-c.done
	return c.err
}

// Stop asks the child to stop (SIGTERM), kills its process group after
// grace if it still runs, and waits for it. It returns nil once the child
// is gone, whatever its exit status.
func (c *Child) Stop(grace time.Duration) error {
	select {
	case <-c.done:
		return nil
	default:
	}
	if grace > 0 {
		if err := terminate(c.Cmd.Process.Pid); err != nil && !errors.Is(err, os.ErrProcessDone) {
			grace = 0
		}
		select {
		case <-c.done:
			return nil
		case <-time.After(grace):
		}
	}
	_ = killGroup(c.Cmd)
	_ = c.Cmd.Process.Kill()
	select {
	case <-c.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s did not exit after SIGKILL", c.Process)
	}
}

// Close ends the registry: it stops the recorded processes that still run
// (SIGTERM, SIGKILL after a few seconds), removes the recorded directories
// and the registry itself. Call it once everything was stopped in order;
// what is left is what failed to stop. Later calls do nothing.
func (r *Registry) Close() (Reaped, error) {
	if r == nil {
		return Reaped{}, nil
	}
	r.closeMu.Lock()
	defer r.closeMu.Unlock()
	if r.ended {
		return Reaped{}, nil
	}
	r.markClosed()
	res, err := reap(r.dir, 5*time.Second)
	r.ended = true
	return res, err
}

// Kill ends the registry at once: SIGKILL for every recorded process that
// still runs, then the directories. It is for a forced exit (a second
// Ctrl-C), when there is no time to stop things in order; it does its work
// even while Close is under way, and a Close during or after it still does
// all of its own, so whichever returns first has removed everything.
func (r *Registry) Kill() (Reaped, error) {
	if r == nil {
		return Reaped{}, nil
	}
	r.markClosed()
	return reap(r.dir, 0)
}

// markClosed stops the registry from recording.
func (r *Registry) markClosed() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
}

// WrapOption configures Registry.Wrap.
type WrapOption func(*wrapConfig)

type wrapConfig struct{ help string }

// WithHelp makes the wrapper answer a lone --help argument with the
// content of file - the binary's own help, saved by the caller - instead
// of running the binary: envtest runs kube-apiserver and etcd with --help
// before every start, to discover their flags, and each such run of a
// wrapped binary costs a start of the wrapper and of the binary (half a
// second of kube-apiserver's, on the way to a served API).
func WithHelp(file string) WrapOption { return func(c *wrapConfig) { c.help = file } }

// Wrap returns the path of an executable that runs binary as a child that
// dies with this process and is recorded, for programs that a library
// starts (envtest's kube-apiserver and etcd): pass it where the library
// takes the binary's path. The wrapper is a shell script that sets the
// parent-death signal, records its own pid and then execs binary with the
// same arguments and environment, so the library sees the binary's own
// pid, output and exit status. On Linux it arms the signal with
// util-linux's setpriv where that has --pdeathsig (a few milliseconds);
// elsewhere, or without it, it runs this process's executable (see
// WithExecutable) in its wrapper mode, which does the same in Go (a
// fifth of a second for kbook's package initialisation). Without a
// registry, and on Windows, Wrap returns binary itself.
func (r *Registry) Wrap(binary, name string, opts ...WrapOption) (string, error) {
	if r == nil || !canWrap {
		return binary, nil
	}
	var c wrapConfig
	for _, o := range opts {
		o(&c)
	}
	abs, err := filepath.Abs(binary)
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	dir := filepath.Join(r.dir, binDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("wrap %s: %w", name, err)
	}
	script := fmt.Sprintf("#!/bin/sh\n# Written by kbook (pid %d): runs %s so that it dies with kbook and is recorded.\n", r.owner.PID, abs)
	if c.help != "" {
		script += fmt.Sprintf("if [ \"$#\" = 1 ] && [ \"$1\" = --help ]; then exec cat %s; fi\n", shellQuote(c.help))
	}
	if sp := r.setpriv(); sp != "" {
		script += r.setprivExec(sp, abs, name)
	} else {
		script += fmt.Sprintf("exec %s %s %s %d %s %s \"$@\"\n",
			shellQuote(r.exe), WrapArg, shellQuote(r.dir), r.owner.PID, shellQuote(name), shellQuote(abs))
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		return "", fmt.Errorf("wrap %s: %w", name, err)
	}
	return path, nil
}

// setprivExec is the wrapper's last line with setpriv: setpriv arms the
// parent-death signal and execs a shell that does what the Go wrapper
// mode does - refuses to go on if the owner died before the signal was
// armed, writes the process's record (pid and start time read from
// /proc/$$/stat, whose 22nd field is the start time; the process keeps
// its pid through the execs) atomically, and execs the binary.
func (r *Registry) setprivExec(setpriv, abs, name string) string {
	exe, _ := json.Marshal(abs)
	nm, _ := json.Marshal(name)
	rec := filepath.Join(r.dir, procPrefix)
	tmp := filepath.Join(r.dir, newPrefix+procPrefix)
	inner := fmt.Sprintf(`[ "$PPID" = %d ] || { echo "kbook process wrapper: kbook (pid %d) that started $0 is gone" >&2; exit 127; }
field20() { shift 19; start=$1; }
read -r stat </proc/$$/stat && field20 ${stat##*) } && [ -n "$start" ] || { echo "kbook process wrapper: cannot read /proc/$$/stat" >&2; exit 127; }
printf '{"pid":%%d,"start":%%s,"exe":%%s,"name":%%s}\n' $$ "$start" %s %s >%s$$.json && mv -f %s$$.json %s$$.json || exit 127
exec "$@"`, r.owner.PID, r.owner.PID, shellQuote(string(exe)), shellQuote(string(nm)), shellQuote(tmp), shellQuote(tmp), shellQuote(rec))
	return fmt.Sprintf("exec %s --pdeathsig KILL -- /bin/sh -c %s %s %s \"$@\"\n", shellQuote(setpriv), shellQuote(inner), shellQuote(name), shellQuote(abs))
}

// setpriv is the setpriv that Wrap's scripts use, or "" for the Go
// wrapper mode.
func (r *Registry) setpriv() string {
	if r.goWrapper {
		return ""
	}
	return findSetpriv()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
