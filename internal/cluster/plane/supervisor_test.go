package plane

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
)

// The test binary doubles as the supervised program: KBOOK_PLANE_HELPER
// says what it does.
func TestMain(m *testing.M) {
	switch os.Getenv("KBOOK_PLANE_HELPER") {
	case "":
		code := m.Run()
		server.Stop() // the API server of the plane tests, if one started
		os.Exit(code)
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
	case "crash": // fail after a log line
		fmt.Println("loading config")
		fmt.Println("error: no such CRD: clusters.cluster.x-k8s.io")
		time.Sleep(200 * time.Millisecond)
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
	return Spec{Name: mode, Path: exe, Env: append([]string{"KBOOK_PLANE_HELPER=" + mode}, env...)}
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

func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	// A zombie is not running.
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}

// TestSupervisorOrderReadyAndStop starts two servers, the second only once
// the first is ready, and stops both by PID in reverse order.
func TestSupervisorOrderReadyAndStop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	s, err := NewSupervisor(filepath.Join(dir, "logs"), nil, nil)
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
		start := time.Now()
		if err := s.Start(ctx, sp, 20*time.Second); err != nil {
			t.Fatal(err)
		}
		if time.Since(start) < 300*time.Millisecond {
			t.Errorf("%s reported ready before it listened", name)
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
	s, err := NewSupervisor(t.TempDir(), nil, nil)
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

	sp = helper(t, "crash")
	sp.Name = "later"
	if err := s.Start(context.Background(), sp, time.Second); err != nil {
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
	s, err := NewSupervisor(dir, nil, nil)
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
	if os.Getenv("KBOOK_PLANE_PARENT") == "1" {
		s, err := NewSupervisor(os.Getenv("LOGDIR"), nil, nil)
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
	cmd.Env = append(os.Environ(), "KBOOK_PLANE_PARENT=1", "LOGDIR="+dir, "PIDFILE="+filepath.Join(dir, "pid"))
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

// testPorts picks n ports for the supervisor tests' helper processes,
// outside the kernel's ephemeral range (see planePortLow) and outside the
// range of a plane another test binary may be starting.
func testPorts(t *testing.T, n int) []int {
	t.Helper()
	ports, err := planePorts(n, 16000, planePortLow)
	if err != nil {
		t.Fatal(err)
	}
	return ports
}

// TestCAPDPortTaken: a second plane on the machine is refused before it
// starts anything, naming the port and what to check.
func TestCAPDPortTaken(t *testing.T) {
	// It holds CAPD's port a moment: a plane another test binary starts
	// meanwhile (go test ./... runs packages in parallel) would fail. With
	// -short it does not wait for a plane that runs (a soak's, a
	// --k0rdent run's) but skips, saying so.
	ctx := context.Background()
	if testing.Short() {
		tried, cancel := context.WithCancel(ctx)
		cancel() // LockMachine tries once, then returns
		ctx = tried
	}
	unlock, err := LockMachine(ctx, func(msg string) { t.Log(msg) })
	if err != nil && testing.Short() {
		t.Skipf("a local k0rdent plane runs on this machine (-short does not wait for it): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(capdDebugPort)) // even one address blocks CAPD's

	if err != nil {
		t.Skipf("port %d is already taken on this machine (a running plane?): %v", capdDebugPort, err)
	}
	defer l.Close()
	err = capdPortFree()
	if err == nil || !strings.Contains(err.Error(), "port 19000 is in use") || !strings.Contains(err.Error(), "kbook cluster status") {
		t.Fatalf("capdPortFree() = %v, want the port named and a hint", err)
	}
	l.Close()
	if err := capdPortFree(); err != nil {
		t.Errorf("capdPortFree() on a free port = %v", err)
	}
}

// TestReleaseNotReadyYet: only kcm's webhook refusing the Management for a
// Release its cache still sees not ready is retried.
func TestReleaseNotReadyYet(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{errors.New(`admission webhook "validation.management.k0rdent.mirantis.com" denied the request: release "kcm-1-11-0" status is not ready`), true},
		{errors.New(`admission webhook "validation.management.k0rdent.mirantis.com" denied the request: provider x is required`), false},
		{errors.New(`connection refused`), false},
	} {
		if got := releaseNotReadyYet(tc.err); got != tc.want {
			t.Errorf("releaseNotReadyYet(%q) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestPlanePorts: the plane's ports are distinct, inside their range
// (outside the kernel's ephemeral one), never one that is taken, and too
// few free ones is an error naming the range.
func TestPlanePorts(t *testing.T) {
	if planePortLow >= 32768 || planePortHigh > capdDebugPort {
		t.Fatalf("plane ports [%d, %d) overlap the ephemeral range or CAPD's ports", planePortLow, planePortHigh)
	}
	const low, high = 18900, 18950
	// Taken: by this test, or by someone else if it cannot listen there.
	taken := map[int]bool{}
	for p := low; p < low+3; p++ {
		if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
			defer l.Close()
		}
		taken[p] = true
	}
	if got, err := planePorts(1, low, low+3); err == nil || !strings.Contains(err.Error(), "between 18900 and 18902") {
		t.Errorf("planePorts of a taken range = %v, %v; want an error naming the range", got, err)
	}
	got, err := planePorts(5, low, high)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range got {
		if p < low || p >= high || seen[p] || taken[p] {
			t.Errorf("planePorts(5, %d, %d) = %v: %d is outside, twice or taken", low, high, got, p)
		}
		seen[p] = true
	}
	if len(got) != 5 {
		t.Errorf("planePorts(5, ...) gave %d ports", len(got))
	}
}
