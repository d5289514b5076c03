package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/proc"
)

// leakRun is one kbook process of the leak test, with a cache directory
// (and so a process registry) and a TMPDIR of its own: every process and
// directory of this run names one of them.
type leakRun struct {
	t          *testing.T
	cache, tmp string
	dir        string // holds the runbooks
	arg        string // the runbook's distinctive sleep argument
}

func newLeakRun(t *testing.T) *leakRun {
	t.Helper()
	if testing.Short() {
		t.Skip("starts local API servers; skipped with -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("counts processes through /proc")
	}
	if _, why := binaries.Available(); why != "" {
		t.Skip(why)
	}
	r := &leakRun{t: t, cache: t.TempDir(), tmp: t.TempDir(), dir: t.TempDir()}
	r.arg = fmt.Sprintf("%d.%06d", 40+os.Getpid()%20, time.Now().Nanosecond()/1000)
	// a.md passes quickly: its result line is output after the servers
	// started. b.md holds the cluster with a long sleep.
	r.write("a.md", "---\nrequires: [cluster]\n---\n```testscript\nexec kubectl get ns\n```\n")
	r.write("b.md", "---\nrequires: [cluster]\n---\n```testscript\nexec sleep "+r.arg+"\n```\n")
	// c.md prints (with -v) when its second step starts.
	r.write("c.md", "---\nrequires: [cluster]\n---\n```testscript\nexec sleep 3\n```\n\n```testscript\nexec sleep "+r.arg+"\n```\n")
	t.Cleanup(r.killAll)
	return r
}

func (r *leakRun) write(name, content string) {
	if err := os.WriteFile(filepath.Join(r.dir, name), []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *leakRun) command(args ...string) *exec.Cmd {
	cmd := exec.Command(kbookBin, args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "KBOOK_CACHE_DIR="+r.cache, "TMPDIR="+r.tmp, "CI=true")
	return cmd
}

// start runs kbook run with args and returns it once ready() holds and
// both servers run, with its output (stdout and stderr).
func (r *leakRun) start(ready func() bool, args ...string) (*exec.Cmd, *bufio.Reader, io.Closer) {
	r.t.Helper()
	cmd := r.command(append([]string{"run", "--no-cache", "-p", "1"}, args...)...)
	pr, pw, err := os.Pipe()
	if err != nil {
		r.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	// A process group of its own, as a shell gives a job: a terminal's
	// Ctrl-C goes to the whole group (see double-SIGINT).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	pw.Close()
	r.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	out := bufio.NewReader(pr)
	deadline := time.Now().Add(3 * time.Minute)
	for !ready() {
		if time.Now().After(deadline) {
			r.t.Fatal("the run never got ready")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Both servers, settled: once, on a loaded machine, a count right
	// after ready() found 1 (cause not found), so the pair is waited
	// for rather than counted once; what the test checks is what is
	// left after the run ends.
	for n := len(r.servers()); n != 2; n = len(r.servers()) {
		if time.Now().After(deadline) {
			r.t.Fatalf("%d API server processes while the run holds the cluster, want 2 (etcd, kube-apiserver)", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cmd, out, pr
}

// servers lists the running etcd and kube-apiserver processes of this run:
// their data and certificate directories are below its cache directory.
func (r *leakRun) servers() []string {
	return r.processes(func(args []string) bool {
		name := filepath.Base(args[0])
		return (name == "etcd" || name == "kube-apiserver") && strings.Contains(strings.Join(args, " "), r.cache)
	})
}

func (r *leakRun) sleepRunning() bool {
	return len(r.processes(func(args []string) bool {
		return len(args) == 2 && filepath.Base(args[0]) == "sleep" && args[1] == r.arg
	})) > 0
}

// processes lists running (not zombie) processes whose command line
// matches.
func (r *leakRun) processes(match func(args []string) bool) []string {
	var out []string
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || len(data) == 0 {
			continue
		}
		args := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
		if !match(args) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if _, err := proc.Inspect(pid); err != nil {
			continue // a zombie: dead, only not reaped
		}
		out = append(out, fmt.Sprintf("%d %s", pid, args[0]))
	}
	return out
}

// leftovers lists what of this run is still on disk: process registries,
// work directories, envtest's temporary directories.
func (r *leakRun) leftovers() []string {
	var out []string
	regs, _ := os.ReadDir(filepath.Join(r.cache, "procs"))
	for _, e := range regs {
		out = append(out, filepath.Join(r.cache, "procs", e.Name()))
	}
	tmps, _ := os.ReadDir(r.tmp)
	for _, e := range tmps {
		out = append(out, filepath.Join(r.tmp, e.Name()))
	}
	return out
}

// check fails unless no server, runbook command or directory of the run is
// left, waiting a little for processes that are being killed.
func (r *leakRun) check(when string) {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		servers, sleeping, files := r.servers(), r.sleepRunning(), r.leftovers()
		if len(servers) == 0 && !sleeping && len(files) == 0 {
			r.t.Logf("%s: 0 etcd/kube-apiserver processes, no runbook command, no directories left", when)
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s: leaked servers %v, runbook sleep running %v, files %v", when, servers, sleeping, files)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// killAll stops whatever a failed test left, by pid.
func (r *leakRun) killAll() {
	for _, p := range append(r.servers(), r.processes(func(a []string) bool { return len(a) == 2 && a[1] == r.arg })...) {
		pid, _ := strconv.Atoi(strings.Fields(p)[0])
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func exitCodeOf(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestNoLeaks is the process-leak test: after each way a run can end
// early, no etcd or kube-apiserver of that run runs, no runbook command
// runs and no directory (keys, data, work) is left - at once, or after the
// next run for kill -9.
func TestNoLeaks(t *testing.T) {
	t.Run("SIGPIPE", func(t *testing.T) {
		// kbook run -v | head -3: the reader goes away while the cluster
		// is up; kbook's next line (step 2's start) meets a closed pipe.
		r := newLeakRun(t)
		cmd, out, reader := r.start(func() bool { return len(r.servers()) == 2 }, "-v", "a.md", "c.md")
		reader.Close()
		start := time.Now()
		err := cmd.Wait()
		if code := exitCodeOf(err); code != findings.ExitBrokenPipe {
			t.Errorf("exit status %d (%v), want %d", code, err, findings.ExitBrokenPipe)
		}
		t.Logf("kbook exited %s after its output was closed", time.Since(start).Round(time.Millisecond))
		_ = out
		r.check("after SIGPIPE")
	})
	t.Run("double-SIGINT", func(t *testing.T) {
		// Ctrl-C, and again while kbook cleans up, each
		// to kbook's whole process group as a terminal sends it (the
		// runbook's command gets it too; the servers, in groups of
		// their own, only from kbook).
		r := newLeakRun(t)
		cmd, out, _ := r.start(r.sleepRunning, "a.md", "b.md")
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		// Again once kbook says it cleans up: the event, not a delay.
		var said strings.Builder
		for !strings.Contains(said.String(), "kbook: interrupted: stopping") {
			line, err := out.ReadString('\n')
			said.WriteString(line)
			if err != nil {
				break
			}
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) // may have exited already
		rest, _ := io.ReadAll(out)
		rest = append([]byte(said.String()), rest...)
		err := cmd.Wait()
		if code := exitCodeOf(err); code != findings.ExitInterrupted {
			t.Errorf("exit status %d, want %d\n%s", code, findings.ExitInterrupted, rest)
		}
		r.check("after two SIGINTs")
	})
	t.Run("SIGKILL-then-next-run", func(t *testing.T) {
		r := newLeakRun(t)
		cmd, _, _ := r.start(r.sleepRunning, "a.md", "b.md")
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		// The servers die with kbook (parent-death signal)...
		deadline := time.Now().Add(10 * time.Second)
		for len(r.servers()) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("servers outlived kbook: %v", r.servers())
			}
			time.Sleep(50 * time.Millisecond)
		}
		if len(r.leftovers()) == 0 {
			t.Fatal("kill -9 left no record: the test proves nothing")
		}
		// ...the next run reaps the rest, the runbook's command included.
		next := r.command("run", "--cluster", "none", "a.md")
		msg, _ := next.CombinedOutput()
		if !strings.Contains(string(msg), "cleaned up after kbook (pid "+strconv.Itoa(cmd.Process.Pid)+")") {
			t.Errorf("the next run did not say what it cleaned up:\n%s", msg)
		}
		r.check("after kill -9 and the next run")
	})
	t.Run("provider-conformance-SIGKILL", func(t *testing.T) {
		// Every command that starts a local API server records it: kill
		// -9 of provider conformance leaves nothing after the next run.
		r := newLeakRun(t)
		components, err := filepath.Abs("../../examples/providers/inventory/infrastructure-components.yaml")
		if err != nil {
			t.Fatal(err)
		}
		cmd := r.command("provider", "conformance", components)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		deadline := time.Now().Add(2 * time.Minute)
		for len(r.servers()) < 2 {
			if time.Now().After(deadline) {
				t.Fatal("provider conformance never had both servers running (recorded below its cache directory)")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if msg, err := r.command("run", "--cluster", "none", "a.md").CombinedOutput(); err != nil {
			t.Fatalf("next run: %v\n%s", err, msg)
		}
		r.check("after kill -9 of provider conformance and the next run")
	})
	t.Run("cluster-serve-SIGKILL", func(t *testing.T) {
		// kill -9 of the process behind kbook cluster up: status tells
		// the truth, down stops what the state names.
		r := newLeakRun(t)
		if out, err := r.command("cluster", "up").CombinedOutput(); err != nil {
			t.Fatalf("cluster up: %v\n%s", err, out)
		}
		data, err := os.ReadFile(filepath.Join(r.cache, "clusters", "default", "state.json"))
		if err != nil {
			t.Fatal(err)
		}
		var st struct{ PID int }
		if err := json.Unmarshal(data, &st); err != nil || st.PID == 0 {
			t.Fatalf("state: %s %v", data, err)
		}
		if n := len(r.servers()); n != 2 {
			t.Fatalf("%d servers after cluster up, want 2", n)
		}
		if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// Once it is gone (a zombie is gone), not after a guessed delay.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if _, err := proc.Inspect(st.PID); errors.Is(err, proc.ErrGone) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the cluster's server (pid %d) still runs 10s after kill -9", st.PID)
			}
		}
		out, err := r.command("cluster", "status").CombinedOutput()
		if exitCodeOf(err) != 1 || !strings.Contains(string(out), "not running") {
			t.Errorf("status after kill -9: exit %d\n%s", exitCodeOf(err), out)
		}
		out, err = r.command("cluster", "down").CombinedOutput()
		if err != nil {
			t.Fatalf("down: %v\n%s", err, out)
		}
		r.check("after kill -9 of cluster serve and cluster down")
		if _, err := os.Stat(filepath.Join(r.cache, "clusters", "default")); !os.IsNotExist(err) {
			t.Error("cluster state left")
		}
	})
}
