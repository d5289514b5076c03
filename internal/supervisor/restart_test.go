package supervisor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/gobuild"
)

// lines keeps what a Logger is told.
type lines = gobuild.Lines

func TestRestartBackoff(t *testing.T) {
	rp := RestartPolicy{Initial: time.Second, Max: 30 * time.Second, Limit: 5}
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 5: 16 * time.Second, 6: 30 * time.Second, 40: 30 * time.Second} {
		if got := rp.backoff(n); got != want {
			t.Errorf("backoff(%d) = %s, want %s", n, got, want)
		}
	}
}

// waitRestart waits for the supervisor's next decided restart.
func waitRestart(t *testing.T, s *Supervisor) Restart {
	t.Helper()
	select {
	case r := <-s.Restarted():
		return r
	case <-time.After(60 * time.Second):
		t.Fatalf("no restart decided within 60s; restarts so far: %v", s.Restarts())
		return Restart{}
	}
}

// startAndKill starts a process named kcm that serves on a free port and
// writes its pid to a file in dir, waits until it is ready, removes the
// file (the restarted process writes it again) and kills the process with
// SIGKILL, as the OOM killer would.
func startAndKill(t *testing.T, s *Supervisor, dir string) (pidFile string, pid int) {
	t.Helper()
	ports := testPorts(t, 1)
	pidFile = filepath.Join(dir, "pid")
	sp := helper(t, "serve", "PORT="+strconv.Itoa(ports[0]), "PIDFILE="+pidFile)
	sp.Name = "kcm"
	sp.Ready = tcpReady(ports[0])
	if err := s.Start(context.Background(), sp, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	pid = readPID(t, pidFile)
	if err := os.Remove(pidFile); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	return pidFile, pid
}

// TestSupervisorRestartsKilledProcess kills a ready controller with
// SIGKILL, as the OOM killer would: the supervisor reports the exit with
// the log's tail, logs it, starts the process again once its readiness
// passes, appends to the same log and records the restart for kbook
// cluster status.
func TestSupervisorRestartsKilledProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	log := &lines{}
	s, err := New(filepath.Join(dir, "logs"), nil, nil, WithLogger(log),
		WithRestartPolicy(RestartPolicy{Initial: 50 * time.Millisecond, Max: time.Second, Limit: 3}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(5 * time.Second)
	pidFile, first := startAndKill(t, s, dir)
	select {
	case c := <-s.Crashes():
		if c.Name != "kcm" || !strings.Contains(c.Err.Error(), "killed") || !strings.Contains(c.Tail, "serving on") {
			t.Errorf("crash = %v", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the kill was not reported")
	}
	r := waitRestart(t, s)
	if r.Name != "kcm" || r.Attempt != 1 || r.Err != "" || r.GaveUp || r.Backoff != 50*time.Millisecond || !strings.Contains(r.Tail, "serving on") {
		t.Errorf("restart = %+v", r)
	}
	second := readPID(t, pidFile)
	if second == first || !alive(second) {
		t.Errorf("after the restart pid %d (was %d), alive %v", second, first, alive(second))
	}
	if got := s.PIDs()["kcm"]; got != second {
		t.Errorf("PIDs()[kcm] = %d, want %d", got, second)
	}
	data, _ := os.ReadFile(s.LogPath("kcm"))
	if strings.Count(string(data), "serving on") != 2 || !strings.Contains(string(data), "# restart 1 at ") {
		t.Errorf("the log does not keep both runs and the restart line:\n%s", data)
	}
	if got := log.String(); !strings.Contains(got, "kcm exited (signal: killed): restart 1/3 in 50ms") || !strings.Contains(got, "serving on") {
		t.Errorf("the logger was not told of the restart with the log tail:\n%s", got)
	}
	rs, err := ReadRestarts(filepath.Join(dir, "logs"))
	if err != nil || len(rs) != 1 || rs[0].Name != "kcm" || rs[0].Attempt != 1 {
		t.Errorf("ReadRestarts = %+v, %v", rs, err)
	}
}

// TestSupervisorRestartLimit: a controller that keeps exiting is restarted
// with doubling waits up to the limit, then left down, and said so.
func TestSupervisorRestartLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	log := &lines{}
	s, err := New(t.TempDir(), nil, nil, WithLogger(log),
		WithRestartPolicy(RestartPolicy{Initial: 10 * time.Millisecond, Max: time.Second, Limit: 2}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(time.Second)
	if err := s.Start(context.Background(), helper(t, "crash"), 20*time.Second); err != nil {
		t.Fatal(err)
	}
	var got []Restart
	for len(got) == 0 || !got[len(got)-1].GaveUp {
		got = append(got, waitRestart(t, s))
	}
	if len(got) != 3 || got[0].Backoff != 10*time.Millisecond || got[1].Backoff != 20*time.Millisecond || got[2].Attempt != 3 {
		t.Fatalf("restarts = %+v, want two (10ms, 20ms) and then giving up", got)
	}
	for _, r := range got {
		if r.Exit != "exit status 3" || !strings.Contains(r.Tail, "no such CRD") {
			t.Errorf("restart %+v lacks the exit status or the log tail", r)
		}
	}
	if !strings.Contains(got[2].String(), "after 2 restarts in a row: not restarted again") {
		t.Errorf("giving up reads %q", got[2])
	}
	if !strings.Contains(log.String(), "not restarting it again") {
		t.Errorf("the logger was not told:\n%s", log)
	}
	if len(s.Running()) != 0 {
		t.Errorf("running after giving up: %v", s.Running())
	}
	// Giving up is an event: the runbooks using a k0rdent plane fail on it.
	select {
	case <-s.Down():
	case <-time.After(30 * time.Second):
		t.Fatal("Down not closed after giving up")
	}
	var de *DownError
	if err := s.DownErr(); !errors.As(err, &de) {
		t.Fatalf("DownErr() = %v, want a *DownError", err)
	}
	if de.Name != "crash" || de.Exit != "exit status 3" || de.Restarts != 2 || !strings.Contains(de.Tail, "no such CRD") || de.LogPath != s.LogPath("crash") {
		t.Errorf("DownErr() = %+v", de)
	}
	if want := "crash exited (exit status 3) after 2 restarts in a row and stays down (log " + s.LogPath("crash") + ")"; de.Error() != want {
		t.Errorf("DownErr() reads %q, want %q", de, want)
	}
}

// TestSupervisorDownOnlyOnGivingUp: Down stays open while a killed
// process is restarted and when the supervisor stops it on purpose.
func TestSupervisorDownOnlyOnGivingUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	s, err := New(filepath.Join(dir, "logs"), nil, nil, WithRestartPolicy(RestartPolicy{Initial: 10 * time.Millisecond, Max: time.Second, Limit: 1}))
	if err != nil {
		t.Fatal(err)
	}
	pidFile, _ := startAndKill(t, s, dir)
	if r := waitRestart(t, s); r.GaveUp || r.Err != "" || r.Attempt != 1 {
		t.Fatalf("restart = %+v", r)
	}
	readPID(t, pidFile) // the restarted process serves
	if err := s.DownErr(); err != nil {
		t.Errorf("down after a restart that worked: %v", err)
	}
	if err := s.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Down():
		t.Errorf("Down closed by Stop: %v", s.DownErr())
	default:
	}
}
