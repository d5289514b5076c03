package runner

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

	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
)

// fakeWatch writes a kubectl into a folder of its own that behaves as
// kubectl get -w: it prints a table's header and a row, then starts a
// child that writes "<kubectl's pid> <its pid>" into $FIFO (waiting for
// the test to read it), prints the rows given in $ROWS and runs on,
// forever. It returns the folder.
func fakeWatch(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	script := "#!/bin/bash\nprintf 'NAME    READY   STATUS\\nweb-1   0/1     Pending\\n'\n" +
		"bash -c 'echo \"$PPID $$\" > \"$FIFO\"; printf \"%b\" \"$ROWS\"; exec sleep 300'\n"
	if err := os.WriteFile(filepath.Join(bin, "kubectl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// watchPids reads the two pids the fake kubectl writes, and returns
// channels closed when each has exited.
// If the page ends first, the test fails with its result.
func watchPids(t *testing.T, fifo string, done <-chan *report.Report) ([]int, []<-chan struct{}) {
	t.Helper()
	read := make(chan []byte, 1)
	go func() {
		data, _ := os.ReadFile(fifo) // waits for the fake kubectl
		read <- data
	}()
	var data []byte
	select {
	case data = <-read:
	case rep := <-done:
		// Unblock the reader.
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatalf("the page ended before its watch started:\n%s", dumpResult(rep.Runbooks[0]))
	}
	var pids []int
	var exited []<-chan struct{}
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pids %q", data)
		}
		ch, err := proc.Exited(pid)
		if errors.Is(err, syscall.ESRCH) {
			// Interrupted and gone already: the page's last row can
			// come before this test reads the pids.
			gone := make(chan struct{})
			close(gone)
			ch, err = gone, nil
		}
		if err != nil {
			t.Fatalf("pid %d: %v", pid, err)
		}
		pids, exited = append(pids, pid), append(exited, ch)
	}
	if len(pids) != 2 {
		t.Fatalf("pids %q", data)
	}
	return pids, exited
}

// TestShellWatchBounded: a block running kubectl get -w is interrupted
// once the expected output's last row has appeared, the watch and its
// child end while the page goes on, and the block passes.
func TestShellWatchBounded(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("finding a block's processes needs /proc")
	}
	dir := t.TempDir()
	fifo, gate := filepath.Join(dir, "pids"), filepath.Join(dir, "gate")
	for _, f := range []string{fifo, gate} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	page := filepath.Join(dir, "page.md")
	src := "---\nrun: shell\ntimeout: 5m\n---\n\n" +
		"```bash\nkubectl get pods -w\n```\n\n" +
		"```console\nNAME    READY   STATUS\nweb-1   0/1     Pending\nweb-1   1/1     Running\n```\n\n" +
		// The page goes on in the same session once the test opens the gate.
		"```bash\necho after; cat \"$GATE\"\n```\n\n```text\nafter\nopen\n```\n"
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Parallel: 1, Env: []string{
		"PATH=" + fakeWatch(t) + ":" + os.Getenv("PATH"), "FIFO=" + fifo, "GATE=" + gate,
		`ROWS=web-1   1/1     Running\n`}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *report.Report, 1)
	go func() { done <- r.Run(context.Background(), load(t, page)) }()
	pids, exited := watchPids(t, fifo, done)
	for i, ch := range exited {
		select {
		case <-ch:
		case rep := <-done:
			t.Fatalf("the page ended while process %d of the watch ran:\n%s", pids[i], dumpResult(rep.Runbooks[0]))
		}
	}
	// The watch is gone, and the page still runs: let it go on.
	if err := os.WriteFile(gate, []byte("open\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := (<-done).Runbooks[0]
	if res.Status != report.Passed {
		t.Fatalf("page.md:\n%s", dumpResult(res))
	}
	b := res.Steps[0].Shell
	if b == nil || b.Result != report.BlockPassed || b.Interrupted != "kubectl get pods -w (line 7)" || b.ExitCode != 0 {
		t.Errorf("the watch's block: %+v", b)
	}
	if got := res.Steps[0].ShellResult(); got != "passed (output matched: shape; then kbook interrupted kubectl get pods -w (line 7))" {
		t.Errorf("ShellResult = %q", got)
	}
	if s := res.Steps[1].Shell; s == nil || s.Result != report.BlockPassed {
		t.Errorf("the block after the watch: %+v", s)
	}
}

// TestShellWatchTimeout: a watch whose expected output never appears
// fails at the runbook's time limit, at the block's line, saying so, and
// it and its child are gone with the page's session.
func TestShellWatchTimeout(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pids")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "page.md")
	src := "---\nrun: shell\ntimeout: 2s\n---\n\n" +
		"```bash\nkubectl get pods -w\n```\n\n" +
		"```console\nNAME    READY   STATUS\nweb-2   1/1     Running\n```\n"
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Parallel: 1, Env: []string{"PATH=" + fakeWatch(t) + ":" + os.Getenv("PATH"), "FIFO=" + fifo, "ROWS="}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *report.Report, 1)
	go func() { done <- r.Run(context.Background(), load(t, page)) }()
	pids, exited := watchPids(t, fifo, done)
	res := (<-done).Runbooks[0]
	if res.Status != report.Failed || res.Failure == nil || res.Failure.Line != 6 ||
		!strings.Contains(res.Reason, "kubectl get pods -w (line 7) still ran at the runbook's time limit, and the expected output's last line ("+page+":12) had not appeared") {
		t.Fatalf("page.md:\n%s", dumpResult(res))
	}
	for i, ch := range exited {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Errorf("process %d of the watch outlived its runbook", pids[i])
		}
	}
}

// TestShellWatchNoOutput: a watch the page shows no output for fails at
// once, saying what to do, rather than at the time limit.
func TestShellWatchNoOutput(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(page, []byte("---\nrun: shell\n---\n\n```bash\necho hi\nkubectl logs -f deploy/web\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runShell(t, page)
	if res.Status != report.Failed || res.Failure == nil || res.Failure.Line != 5 ||
		!strings.Contains(res.Reason, "kubectl logs -f deploy/web (line 7) runs until it is interrupted, and the page shows no output for the block") {
		t.Fatalf("page.md:\n%s", dumpResult(res))
	}
	if s := res.Steps[0].Shell; s == nil || s.Result != report.BlockFailed {
		t.Errorf("block: %+v", s)
	}
}
