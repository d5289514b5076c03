package supervisor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/proc"
)

// The test binary doubles as the supervised program: KBOOK_SUPERVISOR_HELPER
// says what it does.
func TestMain(m *testing.M) {
	switch os.Getenv("KBOOK_SUPERVISOR_HELPER") {
	case "":
		os.Exit(m.Run())
	case "serve": // listen on $PORT after $DELAY, write a pid file, run until killed
		if d, err := time.ParseDuration(os.Getenv("DELAY")); err == nil {
			time.Sleep(d)
		}
		fmt.Println("serving on", os.Getenv("PORT"))
		_ = os.WriteFile(os.Getenv("PIDFILE"), []byte(strconv.Itoa(os.Getpid())), 0o644)
		l, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
		if err != nil {
			fmt.Println("listen:", err)
			os.Exit(1)
		}
		for {
			c, err := l.Accept()
			if err == nil {
				c.Close()
			}
		}
	case "crash": // fail after a log line, once $KBOOK_CRASH_AFTER exists when it is set
		fmt.Println("loading config")
		fmt.Println("error: no such CRD: clusters.cluster.x-k8s.io")
		for g := os.Getenv("KBOOK_CRASH_AFTER"); g != ""; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(g); err == nil {
				break
			}
		}
		os.Exit(3)
	case "ignore-term": // ignore SIGTERM: the supervisor must kill it
		_ = os.WriteFile(os.Getenv("PIDFILE"), []byte(strconv.Itoa(os.Getpid())), 0o644)
		ignoreTerm()
		fmt.Println("ignoring SIGTERM")
		time.Sleep(time.Hour)
	}
}

func tcpReady(port int) func(context.Context) error {
	return func(ctx context.Context) error {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			return err
		}
		return c.Close()
	}
}

func helper(t *testing.T, mode string, env ...string) Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Spec{Name: mode, Path: exe, Env: append([]string{"KBOOK_SUPERVISOR_HELPER=" + mode}, env...)}
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	for range 100 {
		if data, err := os.ReadFile(path); err == nil && len(data) > 0 {
			pid, _ := strconv.Atoi(string(data))
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

// alive says whether pid runs (a zombie does not).
func alive(pid int) bool {
	_, err := proc.Inspect(pid)
	return err == nil
}

// TestSupervisorOrderReadyAndStop starts two servers, the second only once
// the first is ready, and stops both by PID in reverse order.
func TestSupervisorOrderReadyAndStop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	s, err := New(filepath.Join(dir, "logs"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ports := testPorts(t, 2)
	ctx := context.Background()
	var pids []int
	for i, name := range []string{"first", "second"} {
		sp := helper(t, "serve", "PORT="+strconv.Itoa(ports[i]), "DELAY=300ms", "PIDFILE="+filepath.Join(dir, name+".pid"))
		sp.Name = name
		sp.Ready = tcpReady(ports[i])
		if err := s.Start(ctx, sp, 20*time.Second); err != nil {
			t.Fatal(err)
		}
		// It listens 300 ms after it starts: Start returned once it did.
		if err := tcpReady(ports[i])(ctx); err != nil {
			t.Errorf("%s reported ready before it listened: %v", name, err)
		}
		pids = append(pids, readPID(t, filepath.Join(dir, name+".pid")))
	}
	if got := strings.Join(s.Running(), ","); got != "first,second" {
		t.Errorf("running = %s", got)
	}
	log, _ := os.ReadFile(s.LogPath("first"))
	if !strings.Contains(string(log), "serving on "+strconv.Itoa(ports[0])) {
		t.Errorf("first's log lacks its output:\n%s", log)
	}
	if err := s.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	for i, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d (pid %d) still runs after Stop", i, pid)
		}
	}
	select {
	case c := <-s.Crashes():
		t.Errorf("a stopped process was reported as a crash: %v", c)
	default:
	}
}

// TestSupervisorCrash: a process that exits before it is ready fails Start
// with its log tail; one that exits later is reported on Crashes.
func TestSupervisorCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	s, err := New(t.TempDir(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(time.Second)
	sp := helper(t, "crash")
	sp.Ready = func(context.Context) error { return errors.New("not yet") }
	err = s.Start(context.Background(), sp, 20*time.Second)
	var c Crash
	if !errors.As(err, &c) {
		t.Fatalf("Start of a crashing process: %v", err)
	}
	if !strings.Contains(c.Tail, "no such CRD: clusters.cluster.x-k8s.io") || !strings.Contains(c.Error(), "exit status 3") {
		t.Errorf("crash report lacks the log tail or exit status:\n%v", c)
	}

	// The second crashes once Start has returned: the event, not a delay
	// Start had to beat.
	goAhead := filepath.Join(t.TempDir(), "go")
	sp = helper(t, "crash", "KBOOK_CRASH_AFTER="+goAhead)
	sp.Name = "later"
	if err := s.Start(context.Background(), sp, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goAhead, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-s.Crashes():
		if c.Name != "later" || !strings.Contains(c.Tail, "no such CRD") {
			t.Errorf("crash = %v", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no crash reported")
	}
}

// TestSupervisorKillsStubborn: a process that ignores SIGTERM is killed
// after the grace period.
func TestSupervisorKillsStubborn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	s, err := New(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp := helper(t, "ignore-term", "PIDFILE="+filepath.Join(dir, "pid"))
	sp.Ready = func(context.Context) error {
		if l := Tail(s.LogPath("ignore-term"), 1); !strings.Contains(l, "ignoring") {
			return errors.New("not yet")
		}
		return nil
	}
	if err := s.Start(context.Background(), sp, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	pid := readPID(t, filepath.Join(dir, "pid"))
	start := time.Now()
	if err := s.Stop(500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("pid %d survived Stop", pid)
	}
	if took := time.Since(start); took < 400*time.Millisecond {
		t.Errorf("killed after %s, before the grace period", took)
	}
}

// TestChildDiesWithParent: a supervised process dies when the process that
// started it is killed with SIGKILL (Linux: parent-death signal).
func TestChildDiesWithParent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	if os.Getenv("KBOOK_SUPERVISOR_PARENT") == "1" {
		s, err := New(os.Getenv("LOGDIR"), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		sp := helper(t, "ignore-term", "PIDFILE="+os.Getenv("PIDFILE"))
		if err := s.Start(context.Background(), sp, time.Second); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Hour)
		return
	}
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("parent-death signal: Linux only")
	}
	dir := t.TempDir()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run", "^TestChildDiesWithParent$")
	cmd.Env = append(os.Environ(), "KBOOK_SUPERVISOR_PARENT=1", "LOGDIR="+dir, "PIDFILE="+filepath.Join(dir, "pid"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := readPID(t, filepath.Join(dir, "pid"))
	if !alive(pid) {
		t.Fatal("child not running")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d outlived its SIGKILLed parent", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// testPorts picks n ports for the tests' helper processes, free now on
// 127.0.0.1, from [16000, 17000): outside the kernel's ephemeral range
// (a port from there, released until the helper binds it, could be taken
// by any connection meanwhile) and below the k0rdent plane's range
// (17000-19000), which a plane another test binary starts may use.
func testPorts(t *testing.T, n int) []int {
	t.Helper()
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for p := 16000; p < 17000 && len(ports) < n; p++ {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		ls = append(ls, l)
		ports = append(ports, p)
	}
	if len(ports) < n {
		t.Fatalf("only %d of %d ports free between 16000 and 16999", len(ports), n)
	}
	return ports
}
