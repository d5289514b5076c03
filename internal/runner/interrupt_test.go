package runner

import (
	"context"
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

// runInterrupted runs pages with r, waits until a command of theirs has
// written its pid to fifo (a FIFO: the read waits for it), interrupts
// the run, and returns its report, the pid, and a channel closed once
// that process has exited.
func runInterrupted(t *testing.T, r *Runner, fifo string, pages ...string) (*report.Report, int, <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *report.Report)
	go func() { done <- r.Run(ctx, load(t, pages...)) }()
	data, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid %q", data)
	}
	exited, err := proc.Exited(pid)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	return <-done, pid, exited
}

// TestInterruptedStatus: a runbook the run's interrupt stops is
// interrupted, not failed - the step that ran interrupted, the steps
// after it and the runbooks not started skipped because of the
// interrupt - its duration is not recorded and no diagnostics are
// collected. The test waits on events only: the command's pid through a
// FIFO, its exit through a pidfd.
func TestInterruptedStatus(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(dir, "a.md")
	b := filepath.Join(dir, "b.md")
	src := "# A\n\n## Wait\n\n```testscript\nexec echo before\nexec sh -c 'echo $$ > \"$FIFO\"; exec sleep 303'\n```\n\n## After\n\n```testscript\nexec true\n```\n"
	if err := os.WriteFile(a, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("# B\n\n```testscript\nexec true\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Parallel: 1, Env: []string{"FIFO=" + fifo}})
	if err != nil {
		t.Fatal(err)
	}
	rep, pid, exited := runInterrupted(t, r, fifo, a, b)
	if !rep.Interrupted || len(rep.Runbooks) != 2 {
		t.Fatalf("interrupted %v, %d runbooks", rep.Interrupted, len(rep.Runbooks))
	}
	ra, rb := rep.Runbooks[0], rep.Runbooks[1]
	if want := "interrupted while running exec sh -c"; ra.Status != report.Interrupted || !strings.HasPrefix(ra.Reason, want) {
		t.Errorf("a.md: %s %q, want interrupted, %q...", ra.Status, ra.Reason, want)
	}
	if ra.Failure == nil || ra.Failure.Line != 7 || !strings.HasPrefix(ra.Failure.Message, "interrupted") {
		t.Errorf("a.md: failure %+v, want line 7, interrupted", ra.Failure)
	}
	if ra.Diagnostics != "" {
		t.Errorf("a.md: diagnostics of an interrupted runbook: %q", ra.Diagnostics)
	}
	if len(ra.Steps) != 2 || ra.Steps[0].Status != report.Interrupted ||
		ra.Steps[1].Status != report.Skipped || ra.Steps[1].Reason != "not run: the run was interrupted" {
		for _, st := range ra.Steps {
			t.Logf("step %s: %s %q", st.Name, st.Status, st.Reason)
		}
		t.Error("a.md: want its first step interrupted, its second not run because of the interrupt")
	}
	if rb.Status != report.Skipped || !strings.Contains(rb.Reason, "interrupted") {
		t.Errorf("b.md: %s %q, want skipped, interrupted", rb.Status, rb.Reason)
	}
	if s := rep.Summary(); s.Interrupted != 1 || s.Failed != 0 || s.Skipped != 1 {
		t.Errorf("summary %+v, want 1 interrupted, 1 skipped, none failed", s)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Errorf("the interrupted command (pid %d) outlived the run", pid)
	}
}

// TestMarkInterrupted: only the failed step becomes interrupted; a step
// skipped for another reason keeps it.
func TestMarkInterrupted(t *testing.T) {
	f := &report.Failure{File: "a.md", Line: 4, Message: "unexpected command failure"}
	res := &report.Runbook{Path: "a.md", Status: report.Failed, Reason: f.Message, Failure: f, Steps: []*report.Step{
		{Name: "one", Status: report.Passed},
		{Name: "two", Status: report.Failed, Failure: f, Commands: []*report.Command{{Text: "exec true"}, {Text: "exec sleep 9", Failed: true}}},
		{Name: "three", Status: report.Skipped, Reason: "not run: an earlier step failed"},
		{Name: "four", Status: report.Skipped, Reason: "deselected by -run"},
	}}
	markInterrupted(res)
	want := "interrupted while running exec sleep 9"
	if res.Status != report.Interrupted || res.Reason != want || res.Failure.Message != want || res.Failure.Line != 4 {
		t.Errorf("runbook: %s %q %+v", res.Status, res.Reason, res.Failure)
	}
	if f.Message != "unexpected command failure" {
		t.Error("markInterrupted changed the failure it was given")
	}
	got := []string{}
	for _, st := range res.Steps {
		got = append(got, string(st.Status)+": "+st.Reason)
	}
	if w := []string{"passed: ", "interrupted: " + want, "skipped: not run: the run was interrupted", "skipped: deselected by -run"}; strings.Join(got, "|") != strings.Join(w, "|") {
		t.Errorf("steps %q, want %q", got, w)
	}
}
