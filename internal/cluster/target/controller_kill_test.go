package target

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/console"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
	"github.com/k0rdent/kbook/internal/supervisor"
)

// TestControllerKilledMidRunbook starts the real local k0rdent plane,
// kills source-controller with SIGKILL while a runbook is paused in its
// first command, and checks that the supervisor restarts it (logged with
// the log tail, recorded where kbook cluster status reads restarts), that
// the runbook then passes on the restarted controller (a HelmRepository
// it reconciles), and that the diagnostics of a runbook failing after it
// name the exit. One plane start; the test waits on the runbook's FIFOs
// and the supervisor's events, never on time.
func TestControllerKilledMidRunbook(t *testing.T) {
	dir := serverBinaries(t, "starts the local k0rdent plane")
	rel, err := controllers.K0rdent("")
	if err != nil {
		t.Fatal(err)
	}
	if _, why := controllers.K0rdentAwait(context.Background(), rel, false, controllers.K0rdentLogger(apitest.Logger(t))); why != "" {
		t.Skip(why)
	}
	const victim = "source-controller"
	// What kbook prints of the cluster's progress, as on a terminal.
	logFile := filepath.Join(t.TempDir(), "log")
	lf, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	log := console.New(lf, false, false)
	logged := func() string { data, _ := os.ReadFile(logFile); return string(data) }
	ctx := context.Background()
	tg, err := New(ctx, cluster.Options{Backend: cluster.Local, AssetsDir: dir, K0rdent: rel.Version, Logger: log, Procs: apitest.Procs(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close(ctx)
	c, err := tg.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	p := cluster.PlaneOf(c)
	if p == nil {
		t.Fatal("no k0rdent plane on a local cluster started with K0rdent")
	}
	pid := p.PIDs()[victim]
	if pid == 0 {
		t.Fatalf("no %s among the plane's processes %v", victim, p.PIDs())
	}

	ff := fifos(t, t.TempDir(), "started", "resume")
	started, resume := ff[0], ff[1]
	survives, fails := "testdata/controller-kill/a-survives.md", "testdata/controller-kill/b-fails.md"
	rbs, err := runbook.Load([]string{survives, fails})
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.New(runner.Options{Parallel: 1, Target: tg, Cmds: kubecmd.Commands(),
		Env: []string{"STARTED=" + started, "RESUME=" + resume, "REPO_URL=" + p.RepoURL()}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *report.Report, 1)
	go func() { done <- r.Run(ctx, rbs) }()

	readPID(t, started) // the runbook's first command runs
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var restart supervisor.Restart
	for restart.Name != victim {
		select {
		case restart = <-p.Restarted():
		case rep := <-done:
			t.Fatalf("the run ended before %s restarted: %+v", victim, rep.Runbooks)
		case <-time.After(3 * time.Minute):
			// A guard against a hang, not a wait: the restart is an event.
			t.Fatalf("%s not restarted 3 minutes after it was killed; log:\n%s", victim, logged())
		}
	}
	if restart.Err != "" || restart.GaveUp || restart.Attempt != 1 {
		t.Fatalf("the restart of %s: %+v", victim, restart)
	}
	if restart.Tail == "" || !strings.Contains(restart.Exit, "killed") {
		t.Errorf("the restart records no log tail or not the SIGKILL: %+v", restart)
	}
	if np := p.PIDs()[victim]; np == 0 || np == pid {
		t.Errorf("%s's pid after the restart: %d (was %d)", victim, np, pid)
	}
	t.Logf("restart: %s", restart)
	if err := os.WriteFile(resume, []byte("go\n"), 0o600); err != nil { // the runbook goes on
		t.Fatal(err)
	}
	rep := <-done

	results := byPath(rep)
	if s := results[survives]; s == nil || s.Status != report.Passed {
		t.Errorf("the runbook during the kill: %+v", s)
	}
	f := results[fails]
	if f == nil || f.Status != report.Failed {
		t.Fatalf("the runbook failing on purpose: %+v", f)
	}
	if !strings.Contains(f.Diagnostics, "k0rdent controllers that exited during this run") || !strings.Contains(f.Diagnostics, victim+" exited (") {
		t.Errorf("its diagnostics do not name the exit of %s:\n%s", victim, f.Diagnostics)
	}
	if out := logged(); !strings.Contains(out, victim+" exited (") || !strings.Contains(out, "restart 1/") || !strings.Contains(out, victim+" restarted (restart 1) and ready") {
		t.Errorf("the log does not tell the exit and the restart:\n%s", out)
	} else if last := strings.TrimSpace(restart.LastLines(1)); !strings.Contains(out, last) {
		t.Errorf("the log does not show the log tail's last line %q:\n%s", last, out)
	}
	// kbook cluster status lists what the supervisor wrote there.
	recorded, err := supervisor.ReadRestarts(p.LogDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(recorded) != 1 || recorded[0].Name != victim || recorded[0].Tail == "" {
		t.Errorf("restarts recorded in %s: %+v", p.LogDir(), recorded)
	}

	givenUp(t, tg, c, victim)
}

// givenUp kills victim, a controller of tg's plane, each time the
// supervisor has restarted it, until the supervisor gives up on it, while
// a runbook waits in a five-minute await: that runbook must fail within
// seconds of giving up, naming the controller, its restarts and its log
// tail; the next runbook must not start; kbook cluster status must list
// the controller as down; and closing the target must leave nothing of the
// plane or its server running, so that the next run starts clean. The
// default policy's backoffs (victim was restarted once already): 2, 4, 8,
// 16 s, about 30 s in all.
func givenUp(t *testing.T, tg *Target, c cluster.Cluster, victim string) {
	p := cluster.PlaneOf(c)
	ff := fifos(t, t.TempDir(), "started")
	waits, next := "testdata/controller-kill/c-waits.md", "testdata/controller-kill/d-next.md"
	rbs, err := runbook.Load([]string{waits, next})
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.New(runner.Options{Parallel: 1, Target: tg, Cmds: kubecmd.Commands(), Env: []string{"STARTED=" + ff[0]},
		NeedsTarget: func(*runbook.Runbook) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	done := make(chan *report.Report, 1)
	go func() { done <- r.Run(ctx, rbs) }()
	waiter := readPID(t, ff[0])
	pids := cluster.ServerPIDs(c)
	for name, pid := range p.PIDs() {
		pids[name] = pid
	}
	var last supervisor.Restart
	for !last.GaveUp {
		pid := p.PIDs()[victim]
		if pid == 0 {
			t.Fatalf("%s is not running after %+v", victim, last)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for {
			select {
			case last = <-p.Restarted():
			case rep := <-done:
				t.Fatalf("the run ended before the supervisor gave up on %s: %+v", victim, rep.Runbooks)
			case <-time.After(3 * time.Minute):
				t.Fatalf("no restart of %s decided 3 minutes after it was killed", victim) // a guard, not a wait
			}
			if last.Name == victim {
				break
			}
		}
		if last.Err != "" {
			t.Fatalf("the restart of %s failed: %+v", victim, last)
		}
		t.Logf("kill %d: %s", last.Attempt, last)
	}
	w, n := runEnds(t, done, time.Now(), "the supervisor gave up on "+victim, waits, next)
	t.Logf("%s: %s: %s\ndiagnostics:\n%s", waits, w.Status, w.Reason, w.Diagnostics)
	reason := "the k0rdent controller " + victim + " exited (signal: killed) after 5 restarts in a row and stays down (log " + filepath.Join(p.LogDir(), victim+".log") + ")"
	if w.Status != report.Failed || !strings.Contains(w.Reason, reason) {
		t.Errorf("the waiting runbook: %s: %s\nwant %q in the reason", w.Status, w.Reason, reason)
	}
	if tail := strings.TrimSpace(last.LastLines(1)); tail == "" || !strings.Contains(w.Diagnostics, "the last lines of its log:") || !strings.Contains(w.Diagnostics, tail) {
		t.Errorf("the waiting runbook's diagnostics lack the log tail (last line %q):\n%s", tail, w.Diagnostics)
	}
	if n.Status != report.Failed || !strings.HasPrefix(n.Reason, "not run: "+reason) {
		t.Errorf("the next runbook: %s: %s", n.Status, n.Reason)
	}
	// kbook cluster status reads the restarts file.
	rs, err := supervisor.ReadRestarts(p.LogDir())
	if err != nil {
		t.Fatal(err)
	}
	var status strings.Builder
	if err := cluster.WriteStatus(&status, "text", &cluster.Status{Name: "kbook", Backend: cluster.Local, Running: true,
		PlaneLogs: p.LogDir(), Restarts: rs, Down: cluster.DownOf(rs)}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(status.String(), "down:       "+victim+" (") || !strings.Contains(status.String(), "after 5 restarts in a row: not restarted again") {
		t.Errorf("kbook cluster status does not show %s down:\n%s", victim, status.String())
	}
	// Nothing is left: the next run starts a new plane on a new server.
	if err := tg.Close(ctx); err != nil {
		t.Logf("close after giving up: %v", err)
	}
	nothingRuns(t, pids, waiter)
}
