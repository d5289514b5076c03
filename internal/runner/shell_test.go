package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
)

// runShell runs one page and returns its result.
func runShell(t *testing.T, page string) *report.Runbook {
	t.Helper()
	r, err := New(Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Run(context.Background(), load(t, page))
	if len(rep.Runbooks) != 1 {
		t.Fatalf("%d results", len(rep.Runbooks))
	}
	return rep.Runbooks[0]
}

func dumpResult(rb *report.Runbook) string {
	d, _ := json.MarshalIndent(rb, "", "  ")
	return string(d)
}

func TestShellState(t *testing.T) {
	res := runShell(t, "testdata/shell/state.md")
	if res.Status != report.Passed {
		t.Fatalf("state.md:\n%s", dumpResult(res))
	}
	want := []struct {
		line   int
		kind   string
		result string
		mode   string
	}{
		{8, "bash", report.BlockPassed, ""},
		{16, "bash", report.BlockPassed, "shape"},
		{30, "bash", report.BlockPassed, ""},
		{36, "", "", ""}, // testscript: in the folder the shell left
		{44, "console", report.BlockPassed, "shape"},
		{52, "bash", report.BlockRan, "illustrative"},
		{60, "bash", report.BlockPassed, "exact"},
	}
	if len(res.Steps) != len(want) {
		t.Fatalf("%d steps, want %d:\n%s", len(res.Steps), len(want), dumpResult(res))
	}
	for i, w := range want {
		st := res.Steps[i]
		if st.Line != w.line || st.Status != report.Passed {
			t.Errorf("step %d at %d %s, want %d passed", i+1, st.Line, st.Status, w.line)
		}
		if w.kind == "" {
			if st.Shell != nil {
				t.Errorf("testscript step %d has a shell result", i+1)
			}
			continue
		}
		if st.Shell == nil || st.Shell.Lang != w.kind || st.Shell.Result != w.result || st.Shell.Mode != w.mode {
			t.Errorf("step %d shell = %+v, want %s %s %s", i+1, st.Shell, w.kind, w.result, w.mode)
		}
	}
}

func TestShellFailures(t *testing.T) {
	res := runShell(t, "testdata/shell/fail.md")
	if res.Status != report.Failed || res.Failure == nil || res.Failure.Line != 7 {
		t.Fatalf("fail.md:\n%s", dumpResult(res))
	}
	if !strings.Contains(res.Reason, `fail.md:16: expected line 2 (line): want "three", got "two"`) {
		t.Errorf("reason %q", res.Reason)
	}
	if s := res.Steps[0].Shell; s == nil || s.Result != report.BlockFailed || s.ExpectedLine != 15 {
		t.Errorf("block 1: %+v", s)
	}
	if st := res.Steps[1]; st.Status != report.Skipped || st.Shell == nil || st.Shell.Result != report.BlockSkipped {
		t.Errorf("block 2 after the failure: %s %+v", st.Status, st.Shell)
	}

	// set -e semantics: a failing command inside a function stops the
	// block; the next block does not run.
	res = runShell(t, "testdata/shell/exit.md")
	if res.Status != report.Failed || res.Failure == nil || res.Failure.Line != 7 || !strings.Contains(res.Reason, "bash block exited with status 1") {
		t.Fatalf("exit.md:\n%s", dumpResult(res))
	}
	if out := res.Steps[0].Commands[0].Stdout; out != "" || res.Steps[0].Shell.ExitCode != 1 || res.Steps[0].Commands[0].ExitCode != 1 {
		t.Errorf("block 1 printed %q, exit %d", out, res.Steps[0].Shell.ExitCode)
	}
}

// TestShellSetU: a page that sets -u (a variable unset is an error) has
// its failures stop the block as any page's, and the ERR trap that stands
// in for set -e says nothing of its own.
func TestShellSetU(t *testing.T) {
	page := pageFile(t, "page.md", "---\nrun: shell\n---\n\n```bash\nset -u\nf() { false; echo not here; }\n```\n\n```bash\nf\n```\n")
	res := runShell(t, page)
	if res.Status != report.Failed || res.Failure == nil || res.Failure.Line != res.Steps[1].Line {
		t.Fatalf("page.md:\n%s", dumpResult(res))
	}
	if out := res.Steps[1].Commands[0].Stdout; out != "" || res.Steps[1].Shell.ExitCode != 1 {
		t.Errorf("block 2 printed %q, exit %d; want nothing, 1", out, res.Steps[1].Shell.ExitCode)
	}
}

func TestShellErrorLine(t *testing.T) {
	// bash's own messages name the page and its line: the block is
	// padded, and where bash names the file it sourced the block from,
	// the page is named instead.
	dir := t.TempDir()
	page := filepath.Join(dir, "page.md")
	// (A command not on PATH would skip the block: bash's own error
	// about a builtin's failure names the line.)
	if err := os.WriteFile(page, []byte("---\nrun: shell\n---\n\n```bash\necho ok\ncd /kbook-no-such-dir\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runShell(t, page)
	if res.Status != report.Failed || !strings.Contains(res.Steps[0].Commands[0].Stdout, page+": line 7: cd: /kbook-no-such-dir: No such file or directory") {
		t.Fatalf("page.md:\n%s", dumpResult(res))
	}
	if s := res.Steps[0].Shell; s == nil || s.ExitCode != 1 {
		t.Errorf("shell result %+v, want exit 1", s)
	}
}

func TestShellSessionEnds(t *testing.T) {
	// exit ends the session: the block fails, saying so, and what the
	// page sent to the background ends with the runbook.
	dir := t.TempDir()
	page := filepath.Join(dir, "page.md")
	pidFile := filepath.Join(dir, "pid")
	if err := os.WriteFile(page, []byte("---\nrun: shell\n---\n\n```bash\nsleep 300 &\necho $! > \"$PIDFILE\"\nexit 0\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Parallel: 1, Env: []string{"PIDFILE=" + pidFile}})
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Run(context.Background(), load(t, page))
	res := rep.Runbooks[0]
	if res.Status != report.Failed || !strings.Contains(res.Reason, "the page's bash session ended") {
		t.Fatalf("page.md:\n%s", dumpResult(res))
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	gone, err := proc.Exited(pid)
	if err != nil {
		return // already reaped: gone
	}
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatalf("the background sleep %d outlived its runbook", pid)
	}
}

// TestShellCacheKey: a page kbook.yaml opts in runs more than the same
// source without it, so a pass of one is never the other's.
func TestShellCacheKey(t *testing.T) {
	src := []byte("# Page\n\n```testscript\nexec true\n```\n\n```bash\nfalse\n```\n")
	rb, err := runbook.Parse("page.md", src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := r.key(rb)
	if err != nil {
		t.Fatal(err)
	}
	if err := rb.RunShellBlocks("kbook.yaml run.pages"); err != nil {
		t.Fatal(err)
	}
	after, err := r.key(rb)
	if err != nil {
		t.Fatal(err)
	}
	if before.Sum() == after.Sum() {
		t.Errorf("the cache key does not change when the page runs its shell blocks")
	}
}

// TestShellInterrupt: Ctrl-C mid-block ends the block, the page's bash
// and what it started, in the foreground and the background.
func TestShellInterrupt(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pids")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "page.md")
	block := "sleep 300 &\nbg=$!\nbash -c 'echo \"$0 $$\" > \"$FIFO\"; exec sleep 301' \"$bg\"\n"
	if err := os.WriteFile(page, []byte("---\nrun: shell\n---\n\n```bash\n"+block+"```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Parallel: 1, Env: []string{"FIFO=" + fifo}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *report.Report)
	go func() { done <- r.Run(ctx, load(t, page)) }()
	// Opening the FIFO waits for the block to write both pids.
	data, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pids %q", data)
		}
		pids = append(pids, pid)
	}
	if len(pids) != 2 {
		t.Fatalf("pids %q", data)
	}
	var exited []<-chan struct{}
	for _, pid := range pids {
		ch, err := proc.Exited(pid)
		if err != nil {
			t.Fatalf("pid %d: %v", pid, err)
		}
		exited = append(exited, ch)
	}
	cancel()
	res := (<-done).Runbooks[0]
	if res.Status != report.Interrupted || !strings.HasPrefix(res.Reason, "interrupted") {
		t.Errorf("result %s %q, want interrupted", res.Status, res.Reason)
	}
	if got := res.Steps[0].ShellResult(); got != "interrupted (the run was stopped while it ran)" {
		t.Errorf("the block's result in words: %q", got)
	}
	for i, ch := range exited {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Errorf("process %d outlived the interrupted run", pids[i])
		}
	}
}

// TestShellCacheKeyMacros: a page whose macros take other values
// (mkdocs.yml's extra changed, the page did not) has another cache key,
// so that a pass with the old values is not reused.
func TestShellCacheKeyMacros(t *testing.T) {
	src := "---\nrun: shell\n---\n\n```bash\necho {{ v }}\n```\n"
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sums []string
	for _, v := range []string{"1.0", "1.0", "2.0"} {
		rb, err := runbook.Parse("page.md", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := rb.ExpandMacros(strings.Split(strings.ReplaceAll(src, "{{ v }}", v), "\n")); err != nil {
			t.Fatal(err)
		}
		k, err := r.key(rb)
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, k.Sum())
	}
	if sums[0] != sums[1] || sums[1] == sums[2] {
		t.Errorf("cache keys for macro values 1.0, 1.0, 2.0: %q", sums)
	}
}

// TestShellBlocksAsFiles runs pages with the blocks kept in files, and
// the session's prologue sent down its pipe, as where there is no memfd
// (macOS): the same results, and bash's messages name the page.
func TestShellBlocksAsFiles(t *testing.T) {
	defer func(f func() (*os.File, string, bool)) { blocksInMemory = f }(blocksInMemory)
	blocksInMemory = func() (*os.File, string, bool) { return nil, "", false }
	defer func(f func() (string, bool)) { prologueAt = f }(prologueAt)
	prologueAt = func() (string, bool) { return "", false }
	if res := runShell(t, "testdata/shell/state.md"); res.Status != report.Passed {
		t.Fatalf("state.md:\n%s", dumpResult(res))
	}
	TestShellErrorLine(t)
}

// TestShellBlockOptIn: on a page that only a block's run flag opted in,
// that block runs with its output checked, the unflagged one does not
// (its variable is unset), and the page passes only partially verified,
// counting the block left out.
func TestShellBlockOptIn(t *testing.T) {
	res := runShell(t, "testdata/shell/optin.md")
	if res.Status != report.Passed || len(res.Steps) != 1 || res.Steps[0].Line != 11 || res.Steps[0].Shell.Result != report.BlockPassed {
		t.Fatalf("optin.md:\n%s", dumpResult(res))
	}
	if c := res.Shell; c == nil || c.Unflagged != 1 || c.Verification != report.PartlyVerified ||
		c.String() != "partially verified: 1 of 1 ran; 0 provided by kbook; 0 skipped; 0 failed; 1 more without the run flag not run" {
		t.Errorf("counts %+v: %s", c, c)
	}
}

// TestShellBoundFilesInPlace: a block bound to a file by its title= is
// written where the page's commands are when the page reaches it (the
// folder a block cd'd into), and a second block of the same title
// writes the file again, as edited.
func TestShellBoundFilesInPlace(t *testing.T) {
	res := runShell(t, "testdata/shell/boundplace.md")
	if res.Status != report.Passed || res.Shell == nil || res.Shell.Passed != 3 {
		t.Fatalf("boundplace.md:\n%s", dumpResult(res))
	}
	if len(res.Bindings) != 2 || res.Bindings[0].Line != 13 || res.Bindings[1].Line != 27 {
		t.Errorf("bindings %+v, want the two values.yaml blocks", res.Bindings)
	}
}
