package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/testctx"
)

// TestInterrupt checks Ctrl-C: running commands are stopped, runbooks not
// yet started are skipped, reports are still written and the exit status
// is 130.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and waits for them; skipped with -short")
	}
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A distinctive sleep argument lets the test find the process; it
	// outlasts go test's -timeout, so kbook's exit can only be the
	// interrupt's doing.
	arg := fmt.Sprintf("%d.%03d", 7200+os.Getpid()%20, time.Now().Nanosecond()%1000)
	write("a.md", "```testscript\nexec sleep "+arg+"\n```\n")
	write("b.md", "```testscript\nexec echo never\n```\n")
	cmd := exec.Command(kbookBin, "run", "--no-cache", "-p", "1", "--json", "r.json", "--junit", "r.xml", "a.md", "b.md")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CI=true")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	sc := bufio.NewScanner(stdout)
	var out strings.Builder
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "=== RUN   a.md") {
			break
		}
	}
	// Wait until the sleep runs, then interrupt kbook alone (as a
	// SIGTERM from a CI runner or a SIGINT to just the process would).
	// The context ends before go test's -timeout: a sleep that never
	// starts fails here, by name.
	ctx, cancel := testctx.New(t)
	defer cancel()
	for !sleepRunning(arg) {
		select {
		case <-ctx.Done():
			t.Fatalf("sleep never started\n%s", out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
	}
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v, want status 130\n%s", err, out.String())
	}
	if sleepRunning(arg) {
		t.Error("the runbook's sleep is still running after kbook exited")
		_ = exec.Command("pkill", "-f", "^sleep "+arg+"$").Run()
	}
	rep, err := report.ReadJSON(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatalf("report not written: %v\n%s", err, out.String())
	}
	if !rep.Interrupted || len(rep.Runbooks) != 2 {
		t.Fatalf("report: interrupted=%v runbooks=%d", rep.Interrupted, len(rep.Runbooks))
	}
	if a := rep.Runbooks[0]; a.Status != report.Failed || !strings.HasPrefix(a.Reason, "interrupted") {
		t.Errorf("a.md: %s %q", a.Status, a.Reason)
	}
	if b := rep.Runbooks[1]; b.Status != report.Skipped || !strings.Contains(b.Reason, "interrupted") {
		t.Errorf("b.md: %s %q", b.Status, b.Reason)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.xml")); err != nil {
		t.Errorf("JUnit report not written: %v", err)
	}
}

// sleepRunning looks for the test's sleep in /proc.
func sleepRunning(arg string) bool {
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range cmdlines {
		data, err := os.ReadFile(f)
		if err == nil && strings.HasSuffix(string(data), "sleep\x00"+arg+"\x00") {
			return true
		}
	}
	return false
}
