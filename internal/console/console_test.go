package console

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
)

func TestPrinterPlain(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, false, false)
	rb := &runbook.Runbook{Path: "runbooks/a.md", Steps: []*runbook.Step{{Index: 1, Name: "apply"}}}
	p.RunbookStarted(rb)
	p.StepStarted(rb, rb.Steps[0])
	p.RunbookFinished(&report.Runbook{Path: "runbooks/a.md", Status: report.Failed, Reason: "boom", Duration: 1500 * time.Millisecond,
		Failure: &report.Failure{File: "runbooks/a.md", Line: 7, Message: "boom"},
		Log:     "WORK=/tmp/x\nPATH=/bin\n\n# apply (runbooks/a.md:5) (0.1s)\n> exec false\nFAIL: runbooks/a.md:7: boom\n"})
	want := "=== RUN   runbooks/a.md\n--- FAIL  runbooks/a.md:7 (1.5s)\n    boom\n    | # apply (runbooks/a.md:5) (0.1s)\n    | > exec false\n    | FAIL: runbooks/a.md:7: boom\n"
	if buf.String() != want {
		t.Errorf("plain output =\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestPrinterTTY(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, true, false)
	a := &runbook.Runbook{Path: "a.md", Steps: []*runbook.Step{{Index: 1, Name: "one"}, {Index: 2, Name: "two"}}}
	b := &runbook.Runbook{Path: "b.md"}
	p.RunbookStarted(a)
	p.RunbookStarted(b)
	p.StepStarted(a, a.Steps[1])
	p.RunbookFinished(&report.Runbook{Path: "a.md", Status: report.Passed, Duration: time.Second})
	p.RunbookFinished(&report.Runbook{Path: "b.md", Status: report.Skipped, Reason: "requires cluster: none"})
	out := buf.String()
	for _, want := range []string{
		"running: a.md, b.md",
		"\r\033[Krunning: a.md [2/2 two], b.md",
		"\r\033[K--- PASS  a.md (1s)\nrunning: b.md",
		"\r\033[K--- SKIP  b.md: requires cluster: none\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("TTY output lacks %q:\n%q", want, out)
		}
	}
	if strings.HasSuffix(out, "running: b.md") {
		t.Error("status line left on screen after the last runbook")
	}
}

func TestSummary(t *testing.T) {
	rep := &report.Report{Duration: 2 * time.Second, Runbooks: []*report.Runbook{
		{Status: report.Passed, Cached: true},
		{Path: "a.md", Status: report.Failed, Reason: "exec kubectl: exit status 1\nmore", Failure: &report.Failure{File: "a.md", Line: 12}},
		{Path: "b.md", Status: report.Failed, Reason: "interrupted"},
		{Status: report.Skipped},
	}}
	got := Summary(rep, output.Palette{})
	want := "ran 4 runbooks in 2s, 1 from cache\nFAIL  a.md:12: exec kubectl: exit status 1\nFAIL  b.md: interrupted\nkbook: 1 passed, 2 failed, 1 skipped\n"
	if got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	// An interrupted run: the runbook stopped is interrupted, named with
	// where it was; the count says so only when there is one.
	rep = &report.Report{Duration: 2 * time.Second, Interrupted: true, Runbooks: []*report.Runbook{
		{Path: "c.md", Status: report.Interrupted, Reason: "interrupted while running exec sleep 60", Failure: &report.Failure{File: "c.md", Line: 6}},
		{Path: "d.md", Status: report.Skipped, Reason: "not run: the run was interrupted"},
	}}
	got = Summary(rep, output.Palette{})
	want = "ran 2 runbooks in 2s, interrupted\nINTERRUPTED  c.md:6: interrupted while running exec sleep 60\nkbook: 0 passed, 0 failed, 1 skipped, 1 interrupted\n"
	if got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if got, want := Result(rep.Runbooks[0], false), "--- INTERRUPTED  c.md:6 (0s)\n    interrupted while running exec sleep 60\n"; got != want {
		t.Errorf("Result = %q, want %q", got, want)
	}
	one := Summary(&report.Report{Duration: time.Second, Runbooks: []*report.Runbook{{Status: report.Passed}}}, output.Palette{})
	if want := "ran 1 runbook in 1s\nkbook: 1 passed, 0 failed, 0 skipped\n"; one != want {
		t.Errorf("Summary = %q, want %q", one, want)
	}
	// On a terminal: the counts that are not zero and the words FAIL and
	// INTERRUPTED coloured (CI, on no terminal, gets the plain line).
	t.Setenv("NO_COLOR", "")
	got = Summary(rep, output.Colors(output.Terminal{Writer: io.Discard}))
	want = "ran 2 runbooks in 2s, interrupted\n\033[33mINTERRUPTED\033[0m  c.md:6: interrupted while running exec sleep 60\nkbook: 0 passed, 0 failed, \033[2m1 skipped\033[0m, \033[33m1 interrupted\033[0m\n"
	if got != want {
		t.Errorf("Summary on a terminal = %q, want %q", got, want)
	}
	var b bytes.Buffer
	New(output.Terminal{Writer: &b}, false, false).RunbookFinished(&report.Runbook{Path: "a.md", Status: report.Passed})
	if want := "--- \033[32mPASS\033[0m  a.md (0s)\n"; b.String() != want {
		t.Errorf("a pass on a terminal = %q, want %q", b.String(), want)
	}
}

// TestResultRestored: what kbook put back after a page that ran alone,
// and what it could not, under the line that says why it ran alone.
func TestResultRestored(t *testing.T) {
	res := &report.Runbook{Path: "docs/install.md", Status: report.Passed, Duration: 2 * time.Second,
		Alone:    "it names the namespace kcm-system (docs/install.md:31)",
		Restored: &report.Restored{Duration: 300 * time.Millisecond, Failed: []string{"services/s -n kcm-system: put back: field is immutable"}}}
	res.Restored.Changed.Add("managements.k0rdent.mirantis.com/kcm")
	res.Restored.Deleted.Add("configmaps/x -n kcm-system")
	want := "--- PASS  docs/install.md (2s)\n" +
		"    ran alone on the run's cluster: it names the namespace kcm-system (docs/install.md:31)\n" +
		"    after it: restored 1 changed object (managements.k0rdent.mirantis.com/kcm), deleted 1 new (configmaps/x -n kcm-system) in 300ms\n" +
		"    after it: could not restore services/s -n kcm-system: put back: field is immutable\n"
	if got := Result(res, false); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestResultKeptWork: --keep-work names the runbook's $WORK for a pass
// too, as its help says, not only after a failure.
func TestResultKeptWork(t *testing.T) {
	res := &report.Runbook{Path: "a.md", Status: report.Passed, WorkDir: "/tmp/kbook-1/script-a-1"}
	if want := "--- PASS  a.md (0s)\n    work directory kept: /tmp/kbook-1/script-a-1\n"; Result(res, false) != want {
		t.Errorf("got %q, want %q", Result(res, false), want)
	}
}
