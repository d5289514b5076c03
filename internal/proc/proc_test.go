package proc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the "kbook" a registry's wrapper runs and as
// a helper process that plays an owner killed with SIGKILL.
func TestMain(m *testing.M) {
	RunWrapper()
	if os.Getenv("PROC_TEST_HELPER") == "1" {
		helper()
		return
	}
	os.Exit(m.Run())
}

// helper opens a registry in $PROC_TEST_ROOT, starts a child, a wrapped
// child and a process outside its control (its own session, no
// parent-death signal, only recorded), makes a temporary directory and a
// tracked one, prints the pids and waits to be killed.
func helper() {
	root := os.Getenv("PROC_TEST_ROOT")
	r, err := Open(root)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	r.goWrapper = os.Getenv("PROC_TEST_GO_WRAPPER") == "1"
	c, err := r.Start(exec.Command("sleep", "300"), "started")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	w, err := r.Wrap("/bin/sleep", "wrapped")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	wc := exec.Command(w, "301")
	if err := wc.Start(); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	free := exec.Command("sleep", "302")
	free.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := free.Start(); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fp, _ := Inspect(free.Process.Pid)
	fp.Name = "free"
	_ = r.Track(fp)
	outside := filepath.Join(os.Getenv("PROC_TEST_OUTSIDE"), "work")
	// A runbook's command: untracked, but its environment names the
	// tracked work directory.
	cmdInWork := exec.Command("sleep", "303")
	cmdInWork.Env = append(os.Environ(), "WORK="+outside+"/script-x")
	cmdInWork.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmdInWork.Start(); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	tmp, _ := r.MkdirTemp("data-")
	_ = os.WriteFile(filepath.Join(tmp, "key"), []byte("secret"), 0o600)
	_ = os.MkdirAll(outside, 0o700)
	_ = r.TrackDir(outside)
	// Wait until the wrapped child has recorded itself and exec'd sleep.
	for i := 0; i < 500; i++ {
		_, err := os.Stat(filepath.Join(r.Dir(), procRecord(wc.Process.Pid)))
		if p, perr := Inspect(wc.Process.Pid); err == nil && perr == nil && sameFile(p.Exe, "/bin/sleep") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Printf("ready %d %d %d %s %d\n", c.Process.PID, wc.Process.Pid, free.Process.Pid, r.Dir(), cmdInWork.Process.Pid)
	time.Sleep(time.Hour)
}

func requireLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("parent-death signals and start times are Linux features")
	}
}

func running(pid int) bool {
	_, err := Inspect(pid)
	return err == nil
}

func waitGone(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still runs", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestOwnerKilled is the kill -9 story: children die with their owner at
// once, the process outside its control and the directories are reaped by
// the next Sweep; the wrapped child both with setpriv (where the machine
// has it) and with the Go wrapper mode.
func TestOwnerKilled(t *testing.T) {
	eachWrapMode(t, testOwnerKilled)
}

func testOwnerKilled(t *testing.T, goWrapper bool) {
	root, outside := t.TempDir(), t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PROC_TEST_HELPER=1", "PROC_TEST_ROOT="+root, "PROC_TEST_OUTSIDE="+outside)
	if goWrapper {
		cmd.Env = append(cmd.Env, "PROC_TEST_GO_WRAPPER=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ready ") {
		t.Fatalf("helper: %q %v", line, err)
	}
	f := strings.Fields(line)
	started, _ := strconv.Atoi(f[1])
	wrapped, _ := strconv.Atoi(f[2])
	free, _ := strconv.Atoi(f[3])
	regDir := f[4]
	inWork, _ := strconv.Atoi(f[5])
	t.Cleanup(func() { _ = syscall.Kill(free, syscall.SIGKILL); _ = syscall.Kill(inWork, syscall.SIGKILL) })

	// The wrapped child is the real program now, under its own pid.
	wp, err := Inspect(wrapped)
	if err != nil || !sameFile(wp.Exe, "/bin/sleep") {
		t.Fatalf("wrapped child: %+v %v", wp, err)
	}
	var rec Process
	if err := readJSON(filepath.Join(regDir, procRecord(wrapped)), &rec); err != nil || rec.Start != wp.Start || rec.Name != "wrapped" {
		t.Fatalf("wrapped child's record %+v (%v), process %+v", rec, err, wp)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGone(t, "started child", started)
	waitGone(t, "wrapped child", wrapped)
	if !running(free) || !running(inWork) {
		t.Fatal("the processes outside the owner's control died too: the test proves nothing")
	}

	reaped, err := Sweep(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(reaped) != 1 || len(reaped[0].Stopped) != 2 || reaped[0].Owner.PID != cmd.Process.Pid {
		t.Fatalf("sweep: %+v", reaped)
	}
	for _, p := range reaped[0].Stopped {
		if p.PID != free && p.PID != inWork {
			t.Errorf("sweep stopped %s, want pids %d and %d", p, free, inWork)
		}
	}
	if len(reaped[0].Removed) != 2 {
		t.Errorf("removed %v, want the temporary and the tracked directory", reaped[0].Removed)
	}
	waitGone(t, "free process", free)
	waitGone(t, "command in the work directory", inWork)
	if _, err := os.Stat(regDir); !os.IsNotExist(err) {
		t.Errorf("registry %s still exists", regDir)
	}
	if _, err := os.Stat(filepath.Join(outside, "work")); !os.IsNotExist(err) {
		t.Error("tracked directory still exists")
	}
	if again, err := Sweep(root); err != nil || len(again) != 0 {
		t.Errorf("second sweep: %+v %v", again, err)
	}
}

// fakeRegistry writes a registry as a dead owner would have left it.
func fakeRegistry(t *testing.T, root string, owner Process, procs ...Process) string {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprintf("%d-%d-test", owner.PID, owner.Start))
	if err := os.MkdirAll(filepath.Join(dir, tmpDir), 0o700); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(owner0(owner))
	if err := os.WriteFile(filepath.Join(dir, ownerFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		data, _ := json.Marshal(p)
		if err := os.WriteFile(filepath.Join(dir, procRecord(p.PID)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func owner0(p Process) owner { return owner{Format: FormatVersion, Owner: p, Started: time.Now()} }

// deadProcess returns the identity of a process that has exited.
func deadProcess(t *testing.T) Process {
	t.Helper()
	c := exec.Command("true")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	p, _ := Inspect(c.Process.Pid)
	_ = c.Wait()
	if p.PID == 0 {
		p = Process{PID: c.Process.Pid, Start: 1}
	}
	return p
}

func startSleep(t *testing.T) (*exec.Cmd, Process) {
	t.Helper()
	c := exec.Command("sleep", "60")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	p, err := Inspect(c.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return c, p
}

// TestSweepVerifies checks that a sweep kills only what is really the
// recorded process, and never touches registries of running owners.
func TestSweepVerifies(t *testing.T) {
	requireLinux(t)
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		owner  func(Process) Process
		record func(Process) Process
		killed bool
	}{
		{"recorded process of a dead owner", func(Process) Process { return deadProcess(t) }, func(p Process) Process { return p }, true},
		{"reused pid: another start time", func(Process) Process { return deadProcess(t) }, func(p Process) Process { p.Start++; return p }, false},
		{"reused pid: another executable", func(Process) Process { return deadProcess(t) }, func(p Process) Process { p.Exe = "/usr/bin/etcd-not-this"; return p }, false},
		{"unverifiable record", func(Process) Process { return deadProcess(t) }, func(p Process) Process { p.Start = 0; return p }, false},
		{"owner still runs", func(Process) Process { return self }, func(p Process) Process { return p }, false},
		{"owner's pid reused", func(Process) Process { s := self; s.Start--; return s }, func(p Process) Process { return p }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			c, p := startSleep(t)
			dir := fakeRegistry(t, root, tc.owner(p), tc.record(p))
			if _, err := Sweep(root); err != nil {
				t.Fatal(err)
			}
			if tc.killed {
				_ = c.Wait() // reap it, or it stays a zombie
				if running(p.PID) {
					t.Error("recorded process still runs")
				}
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Error("registry not removed")
				}
				return
			}
			if !running(p.PID) {
				t.Error("a process that is not the recorded one was killed")
			}
		})
	}
}

// TestZombieIsNotRunning: a zombie (exited, not reaped) does not run.
func TestZombieIsNotRunning(t *testing.T) {
	requireLinux(t)
	c := exec.Command("true")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for running(c.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("a zombie counts as running")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCloseStopsWhatIsLeft checks Close and Child.Stop: a child that is
// still running when the registry closes is stopped, the registry removed.
func TestCloseStopsWhatIsLeft(t *testing.T) {
	root := t.TempDir()
	r, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.Start(exec.Command("sleep", "60"), "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Start(exec.Command("sleep", "60"), "b")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir(), procRecord(a.Process.PID))); !os.IsNotExist(err) {
		t.Error("a stopped child is still recorded")
	}
	tmp, err := r.MkdirTemp("x-")
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Close()
	if err != nil {
		t.Fatal(err)
	}
	<-b.Done()
	if runtime.GOOS == "linux" && (len(res.Stopped) != 1 || res.Stopped[0].Name != "b") {
		t.Errorf("stopped %v, want b", res.Stopped)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Error("temporary directory left")
	}
	if _, err := os.Stat(r.Dir()); !os.IsNotExist(err) {
		t.Error("registry left")
	}
	if _, err := r.Start(exec.Command("true"), "late"); err == nil {
		t.Error("a closed registry records new children")
	}
}

// TestNilRegistry: without a registry everything still works, untracked.
func TestNilRegistry(t *testing.T) {
	var r *Registry
	c, err := r.Start(exec.Command("true"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if p, _ := r.Wrap("/bin/sleep", "sleep"); p != "/bin/sleep" {
		t.Errorf("Wrap without registry = %s", p)
	}
	d, err := r.MkdirTemp("kbook-proc-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(d)
	if _, err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
