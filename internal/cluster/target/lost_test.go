package target

import (
	"context"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
)

// TestLostServerFailsRunbooks kills the local API server's etcd, then (on
// another cluster) its kube-apiserver, while a runbook waits with a
// five-minute limit - in kbook's await, or in a negated kubectl wait that
// would "pass" once the server is gone: the runbook fails at once with a
// reason naming the process, the next runbook fails without starting,
// nothing of the server or the runbook is left running, and the next run
// starts a cluster that works.
func TestLostServerFailsRunbooks(t *testing.T) {
	dir := serverBinaries(t, "starts local API servers")
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("kbook watches the local API server's processes on Linux only")
	}
	// Each waiter writes the pid of the process that waits to $STARTED:
	// the shell's, which becomes kubectl's when it execs it.
	waiters := []struct{ name, script string }{
		{"await", "exec sh -c 'echo $$ > \"$STARTED\"'\nawait --timeout=5m --for=jsonpath='{.status.phase}'=Gone ns/$NAMESPACE\n"},
		{"negated kubectl wait", "! exec sh -c 'echo $$ > \"$STARTED\"; exec kubectl wait --timeout=5m --for=jsonpath={.status.phase}=Gone ns/$NAMESPACE'\nexec kubectl get ns\n"},
	}
	for _, victim := range []string{binaries.Etcd, binaries.KubeAPIServer} {
		for _, w := range waiters {
			t.Run(victim+"/"+w.name, func(t *testing.T) {
				lostRun(t, dir, victim, w.script)
			})
		}
	}
	// The next run starts clean.
	tg, err := New(context.Background(), cluster.Options{Backend: cluster.Local, AssetsDir: dir, Procs: apitest.Procs(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close(context.Background())
	p := filepath.Join(t.TempDir(), "after.md")
	if err := os.WriteFile(p, []byte("---\nrequires: [cluster]\n---\n```testscript\nexec kubectl get ns default\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rbs, err := runbook.Load([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.New(runner.Options{Parallel: 1, Target: tg, Cmds: kubecmd.Commands()})
	if err != nil {
		t.Fatal(err)
	}
	if res := r.Run(context.Background(), rbs).Runbooks[0]; res.Status != report.Passed {
		t.Errorf("the run after the losses: %s: %s", res.Status, res.Reason)
	}
}

// lostRun runs a runbook made of script and one after it on a new local
// cluster, kills the server's process victim once the script's first
// command ran, and checks what the run reports and leaves.
func lostRun(t *testing.T, dir, victim, script string) {
	tmp := t.TempDir()
	fifo := fifos(t, tmp, "started")[0]
	// runbook.Load orders by path: the waiting runbook runs first.
	waits := filepath.Join(tmp, "1-waits.md")
	next := filepath.Join(tmp, "2-next.md")
	src := "---\nrequires: [cluster]\n---\n```testscript\n" + script + "```\n"
	if err := os.WriteFile(waits, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(next, []byte("---\nrequires: [cluster]\n---\n```testscript\nexec kubectl get ns\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rbs, err := runbook.Load([]string{waits, next})
	if err != nil {
		t.Fatal(err)
	}
	tg, err := New(context.Background(), cluster.Options{Backend: cluster.Local, AssetsDir: dir, Procs: apitest.Procs(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close(context.Background())
	r, err := runner.New(runner.Options{Parallel: 1, Target: tg, Cmds: kubecmd.Commands(), Env: []string{"STARTED=" + fifo},
		NeedsTarget: func(*runbook.Runbook) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *report.Report, 1)
	go func() { done <- r.Run(context.Background(), rbs) }()
	waiter := readPID(t, fifo)
	c, err := tg.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	pids := cluster.ServerPIDs(c)
	pid := pids[victim]
	if pid == 0 {
		t.Fatalf("no %s pid among %v", victim, pids)
	}
	killed := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	w, n := runEnds(t, done, killed, victim+" was killed", waits, next)
	if w.Status != report.Failed || !strings.Contains(w.Reason, "local API server's "+victim) {
		t.Errorf("the waiting runbook: %s: %s", w.Status, w.Reason)
	}
	if n.Status != report.Failed || !strings.HasPrefix(n.Reason, "not run: the local API server's "+victim) {
		t.Errorf("the next runbook: %s: %s", n.Status, n.Reason)
	}
	if err := tg.Close(context.Background()); err != nil {
		t.Logf("close after the loss: %v", err)
	}
	nothingRuns(t, pids, waiter)
}

// runEnds waits for the run to end after what happened at since (a guard
// of two minutes against a hang, not a wait), checks that it ended within
// 10 s and returns the results of the waiting runbook and of the next.
func runEnds(t *testing.T, done <-chan *report.Report, since time.Time, after, waits, next string) (w, n *report.Runbook) {
	t.Helper()
	var rep *report.Report
	select {
	case rep = <-done:
	case <-time.After(2 * time.Minute):
		pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
		t.Fatalf("the run still waits 2 minutes after %s", after)
	}
	took := time.Since(since)
	t.Logf("the run ended %s after %s", took.Round(time.Millisecond), after)
	for _, rb := range rep.Runbooks {
		t.Logf("%s: %s: %s", filepath.Base(rb.Path), rb.Status, rb.Reason)
	}
	if took > 10*time.Second {
		t.Errorf("the run ended %s after %s, not within 10 s", took, after)
	}
	results := byPath(rep)
	if w, n = results[waits], results[next]; w == nil || n == nil {
		t.Fatalf("the report lacks a runbook: %v", rep.Runbooks)
	}
	return w, n
}

// nothingRuns checks that none of the processes pids names, nor a
// runbook's waiting command, still runs after the run.
func nothingRuns(t *testing.T, pids map[string]int, waiter int) {
	t.Helper()
	for name, pid := range pids {
		if (proc.Process{PID: pid}).Running() {
			t.Errorf("%s (pid %d) still runs after the run", name, pid)
		}
	}
	if (proc.Process{PID: waiter}).Running() {
		t.Errorf("the runbook's waiting command (pid %d) still runs after the run", waiter)
	}
}

// fifos makes named pipes in dir: a runbook writing to one blocks until
// the test reads it, and reading one blocks until the runbook writes.
func fifos(t *testing.T, dir string, names ...string) []string {
	t.Helper()
	var out []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// readPID waits until a runbook's command writes its pid to fifo.
func readPID(t *testing.T, fifo string) int {
	t.Helper()
	data, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("the runbook's command wrote %q, not its pid", data)
	}
	return pid
}

// byPath indexes a report's results by runbook path.
func byPath(rep *report.Report) map[string]*report.Runbook {
	out := map[string]*report.Runbook{}
	for _, rb := range rep.Runbooks {
		out[rb.Path] = rb
	}
	return out
}

// serverBinaries is the local API server's binaries, skipping with -short
// (the test does what) and without them.
func serverBinaries(t *testing.T, does string) string {
	t.Helper()
	if testing.Short() {
		t.Skip(does + "; skipped with -short")
	}
	dir, why := binaries.Available()
	if why != "" {
		t.Skip(why)
	}
	return dir
}
