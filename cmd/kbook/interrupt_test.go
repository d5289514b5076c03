package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/testctx"
)

// TestInterrupt checks Ctrl-C (SIGINT to kbook alone, as a CI runner's
// SIGTERM or a kill would send it): the command running is stopped and
// its runbook reported as interrupted - not failed - in the text, the
// JSON report and the JUnit report (a <skipped>, never a <failure>);
// runbooks not yet started are skipped; the summary is the last line of
// the output, after the cluster's cleanup; the exit status is 130. It
// waits on events only: the command's pid through a FIFO, the output's
// lines, the command's exit through a pidfd.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and waits for them; skipped with -short")
	}
	t.Run("no cluster", func(t *testing.T) { testInterrupt(t, "") })
	t.Run("local cluster", func(t *testing.T) {
		assets, why := binaries.Available()
		if why != "" {
			t.Skip(why)
		}
		testInterrupt(t, assets)
	})
}

// testInterrupt interrupts a run; with assets, its runbook holds a local
// API server, whose stop kbook reports.
func testInterrupt(t *testing.T, assets string) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(dir, "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	front := ""
	if assets != "" {
		front = "---\nrequires: [cluster]\n---\n"
	}
	// The sleep outlasts go test's -timeout: kbook's exit can only be
	// the interrupt's doing.
	write("a.md", front+"# A\n\n```testscript\nexec sh -c 'echo $$ > \"$FIFO\"; exec sleep 7200'\n```\n\n```testscript\nexec echo after\n```\n")
	write("b.md", "```testscript\nexec echo never\n```\n")
	cmd := exec.Command(kbookBin, "run", "--no-cache", "-p", "1", "--env", "FIFO="+fifo, "--json", "r.json", "--junit", "r.xml", "a.md", "b.md")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CI=true", "KBOOK_CACHE_DIR="+filepath.Join(dir, ".cache"))
	if assets != "" {
		cmd.Env = append(cmd.Env, binaries.EnvAssets+"="+assets)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// The command writes its pid into the FIFO: reading it waits for
	// the command to run. The context ends before go test's -timeout,
	// so a command that never starts fails here, by name.
	ctx, cancel := testctx.New(t)
	defer cancel()
	pidc := make(chan string, 1)
	go func() {
		data, _ := os.ReadFile(fifo)
		pidc <- strings.TrimSpace(string(data))
	}()
	var out []string
	var pid int
	for pid == 0 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("kbook ended before the command ran:\n%s\n%s", strings.Join(out, "\n"), stderr.String())
			}
			out = append(out, l)
		case s := <-pidc:
			if pid, err = strconv.Atoi(s); err != nil {
				t.Fatalf("pid %q", s)
			}
		case <-ctx.Done():
			t.Fatalf("the command never started\n%s", strings.Join(out, "\n"))
		}
	}
	exited, err := proc.Exited(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		out = append(out, l)
	}
	text := strings.Join(out, "\n")
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v, want status 130\n%s\n%s", err, text, stderr.String())
	}
	select {
	case <-exited:
	case <-ctx.Done():
		t.Error("the runbook's command is still running after kbook exited")
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}

	// The text: the runbook interrupted at its line, the summary last.
	if !strings.Contains(text, "--- INTERRUPTED  a.md:") || strings.Contains(text, "--- FAIL") {
		t.Errorf("the text does not report a.md interrupted:\n%s", text)
	}
	if last := out[len(out)-1]; last != "kbook: 0 passed, 0 failed, 1 skipped, 1 interrupted" {
		t.Errorf("last line %q, want the summary's counts:\n%s", last, text)
	}
	if assets != "" && !strings.Contains(text, "cluster stopped") {
		t.Errorf("the cluster's stop is not reported (before the summary):\n%s", text)
	}

	rep, err := report.ReadJSON(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatalf("report not written: %v\n%s", err, text)
	}
	if !rep.Interrupted || len(rep.Runbooks) != 2 {
		t.Fatalf("report: interrupted=%v runbooks=%d", rep.Interrupted, len(rep.Runbooks))
	}
	if a := rep.Runbooks[0]; a.Status != report.Interrupted || !strings.HasPrefix(a.Reason, "interrupted while running exec sh -c") {
		t.Errorf("a.md: %s %q", a.Status, a.Reason)
	}
	if b := rep.Runbooks[1]; b.Status != report.Skipped || !strings.Contains(b.Reason, "interrupted") {
		t.Errorf("b.md: %s %q", b.Status, b.Reason)
	}
	junit, err := os.ReadFile(filepath.Join(dir, "r.xml"))
	if err != nil {
		t.Fatalf("JUnit report not written: %v", err)
	}
	if strings.Contains(string(junit), "<failure") || !strings.Contains(string(junit), `<skipped message="interrupted while running exec sh -c`) {
		t.Errorf("JUnit: want the interrupted step skipped, no failure:\n%s", junit)
	}
}
