package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/report"
)

// batches records the batches pages send until the test ends: each the
// lines of its blocks.
func batches(t *testing.T) *[][]int {
	var sent [][]int
	batchSent = func(lines []int) { sent = append(sent, lines) }
	t.Cleanup(func() { batchSent = nil })
	return &sent
}

// shellPage is a page of bash blocks, each followed by its expected
// output when it has one ("-": none).
func shellPage(blocks ...string) string {
	var b strings.Builder
	b.WriteString("---\nrun: shell\n---\n\n# Page\n\n")
	for i := 0; i+1 < len(blocks); i += 2 {
		fmt.Fprintf(&b, "```bash\n%s\n```\n\n", blocks[i])
		if blocks[i+1] != "-" {
			fmt.Fprintf(&b, "```console\n%s\n```\n\n", blocks[i+1])
		}
	}
	return b.String()
}

// stepLines are the lines of the result's steps i.
func stepLines(res *report.Runbook, i ...int) []int {
	var lines []int
	for _, n := range i {
		lines = append(lines, res.Steps[n].Line)
	}
	return lines
}

// blockOutcome is what a block printed and its result.
type blockOutcome struct{ out, result string }

// checkBlocks checks each block of res against want, in order.
func checkBlocks(t *testing.T, res *report.Runbook, want []blockOutcome) {
	t.Helper()
	if len(res.Steps) != len(want) {
		t.Fatalf("%d blocks, want %d:\n%s", len(res.Steps), len(want), dumpResult(res))
	}
	for i, w := range want {
		st := res.Steps[i]
		out := ""
		if len(st.Commands) > 0 {
			out = st.Commands[0].Stdout
		}
		if st.Shell.Result != w.result || out != w.out {
			t.Errorf("block %d: %s, printed %q; want %s, %q", i+1, st.Shell.Result, out, w.result, w.out)
		}
	}
}

// TestBatchRunsBlocksTogether: blocks that follow one another run in one
// batch, with the state a terminal keeps (variables, functions, the
// folder) and each block's own output.
func TestBatchRunsBlocksTogether(t *testing.T) {
	sent := batches(t)
	page := pageFile(t, "page.md", shellPage(
		"N=1\ngreet() { echo \"hi $1\"; }\necho \"block $N\"", "block 1",
		"greet reader\nmkdir -p sub && cd sub", "hi reader",
		"basename \"$PWD\"\nN=$((N+1))", "sub",
		"echo \"block $N\"", "block 2",
	))
	res := runShell(t, page)
	if res.Status != report.Passed {
		t.Fatalf("page:\n%s", dumpResult(res))
	}
	if want := [][]int{stepLines(res, 0, 1, 2, 3)}; !reflect.DeepEqual(*sent, want) {
		t.Errorf("batches %v, want %v", *sent, want)
	}
	checkBlocks(t, res, []blockOutcome{
		{"block 1\n", report.BlockPassed},
		{"hi reader\n", report.BlockPassed},
		{"sub\n", report.BlockPassed},
		{"block 2\n", report.BlockPassed},
	})
}

// TestBatchStopsAtDifference: no block of a batch runs after one whose
// output differs or whose status is not 0; the page fails at that block
// as when it runs alone.
func TestBatchStopsAtDifference(t *testing.T) {
	for _, c := range []struct {
		name, block, expected, reason string
	}{
		{"output", "echo two", "three", `expected line 1 (line): want "three", got "two"`},
		{"status", "echo two\nfalse", "two", "bash block exited with status 1"},
		{"a NUL after what the page shows", `printf 'two\0more\n'`, "two", "output differs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sent := batches(t)
			marker := filepath.Join(t.TempDir(), "ran")
			page := pageFile(t, "page.md", shellPage(
				"echo one", "one",
				c.block, c.expected,
				"touch "+marker, "-",
			))
			res := runShell(t, page)
			if res.Status != report.Failed || res.Failure == nil || res.Failure.Line != res.Steps[1].Line || !strings.Contains(res.Reason, c.reason) {
				t.Fatalf("want a failure at the second block (%s):\n%s", c.reason, dumpResult(res))
			}
			if len(*sent) != 1 || len((*sent)[0]) != 3 {
				t.Errorf("batches %v, want one of the three blocks", *sent)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the block after the one that failed ran")
			}
			if r := res.Steps[2].Shell.Result; r != report.BlockSkipped {
				t.Errorf("the third block: %s", r)
			}
		})
	}
}

// TestBatchGoesOn: a block whose output passes the check but is not the
// one its batch was given (a table's AGE), that returns early, or whose
// command is missing, ends its batch; kbook decides about it as about a
// block run alone, and the blocks after it run.
func TestBatchGoesOn(t *testing.T) {
	sent := batches(t)
	page := pageFile(t, "page.md", shellPage(
		"X=kept\nprintf 'NAME   AGE\\nweb    5s\\n'", "NAME   AGE\nweb    3d",
		"echo \"$X\"", "kept",
		"echo x\nreturn 0\necho y", "x",
		"echo one", "one",
		"kbook-no-such-command-zz --version", "-",
		"echo after", "after",
	))
	res := runShell(t, page)
	if res.Status != report.Passed {
		t.Fatalf("page:\n%s", dumpResult(res))
	}
	checkBlocks(t, res, []blockOutcome{
		{"NAME   AGE\nweb    5s\n", report.BlockPassed},
		{"kept\n", report.BlockPassed},
		{"x\n", report.BlockPassed},
		{"one\n", report.BlockPassed},
		{"", report.BlockSkipped},
		{"after\n", report.BlockPassed},
	})
	// The table ends the first batch; the return the second; the
	// missing command the third, after which one block is left.
	if want := [][]int{stepLines(res, 0, 1, 2, 3, 4), stepLines(res, 1, 2, 3, 4), stepLines(res, 3, 4)}; !reflect.DeepEqual(*sent, want) {
		t.Errorf("batches %v, want %v", *sent, want)
	}
}

// TestBatchErrorLine: bash's own messages name the page's line of a block
// in a batch, as of a block run alone.
func TestBatchErrorLine(t *testing.T) {
	batches(t)
	page := pageFile(t, "page.md", shellPage(
		"echo ok", "ok",
		"echo fine\ncd /kbook-no-such-dir", "fine",
	))
	res := runShell(t, page)
	at := res.Steps[1].Line + 2 // the fence, echo fine, cd
	if res.Status != report.Failed || !strings.Contains(res.Steps[1].Commands[0].Stdout, fmt.Sprintf("%s: line %d: cd: /kbook-no-such-dir: No such file or directory", page, at)) {
		t.Fatalf("page:\n%s", dumpResult(res))
	}
}

// TestBatchSameAsAlone: pages give the same results, block by block, run
// in batches or one block at a time.
func TestBatchSameAsAlone(t *testing.T) {
	pages := []string{"testdata/shell/state.md", "testdata/shell/fail.md", "testdata/shell/exit.md",
		pageFile(t, "page.md", shellPage(
			"set -u\nA=1", "-",
			"echo \"$A\"", "1",
			"shopt -s nullglob\nfor f in *.none; do echo \"$f\"; done\necho none", "none",
			"declare -A m=([k]=v)\necho \"${m[k]}\"", "v",
			"f() { false; echo not here; }\necho before", "before",
			"f", "not here",
		))}
	type block struct {
		status, result, out string
		exit                int
	}
	results := func(page string) []block {
		var bs []block
		for _, st := range runShell(t, page).Steps {
			b := block{status: string(st.Status)}
			if st.Shell != nil {
				b.result, b.exit = st.Shell.Result, st.Shell.ExitCode
			}
			if len(st.Commands) > 0 {
				b.out = st.Commands[0].Stdout
			}
			bs = append(bs, b)
		}
		return bs
	}
	for i, page := range pages {
		sent := batches(t)
		together := results(page)
		if len(*sent) == 0 && i != 2 { // exit.md's first block has no output to compare
			t.Errorf("%s: no batch", page)
		}
		aheadShells = false
		alone := results(page)
		aheadShells = true
		if !reflect.DeepEqual(together, alone) {
			t.Errorf("%s:\nin batches    %+v\none at a time %+v", page, together, alone)
		}
	}
}

// TestBatchInterrupt: Ctrl-C while a block of a batch runs ends the
// block, the page's bash and what the block started.
func TestBatchInterrupt(t *testing.T) {
	sent := batches(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	page := pageFile(t, "page.md", shellPage(
		"echo one", "one",
		"bash -c 'echo $$ > \"$FIFO\"; exec sleep 301'", "-",
	))
	r, err := New(Options{Parallel: 1, Env: []string{"FIFO=" + fifo}})
	if err != nil {
		t.Fatal(err)
	}
	rep, pid, exited := runInterrupted(t, r, fifo, page)
	res := rep.Runbooks[0]
	if res.Status != report.Interrupted {
		t.Errorf("result %s %q, want interrupted", res.Status, res.Reason)
	}
	if len(*sent) != 1 || len((*sent)[0]) != 2 {
		t.Errorf("batches %v, want one of both blocks", *sent)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Errorf("the block's sleep %d outlived the interrupted run", pid)
	}
}
