package site

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
)

// TestVerifySkipAfterSteps: a runbook whose script passed steps and then
// hit skip is partially verified, as content/site/verification.md says:
// the steps that passed are verified, the others listed as skipped, and
// the badge, the Verification page and verification.json say so.
func TestVerifySkipAfterSteps(t *testing.T) {
	if _, err := os.Stat("/usr/bin/nvidia-smi"); err == nil {
		t.Skip("this machine has nvidia-smi: the fixture's step does not skip")
	}
	dir := filepath.Join(t.TempDir(), "docs")
	if err := os.CopyFS(dir, os.DirFS("testdata/skipping")); err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep := runAll(t, p)
	v, res := Verify(p.Runbooks[0], rep.Runbooks[0])
	if v.Status != Partial || v.Label != "Partially verified" || v.StepsPassed != 2 || v.StepsSkipped != 2 || v.Date == "" || res == nil {
		t.Fatalf("verification = %+v", v)
	}
	if !strings.Contains(v.Reason, "2 of 4 steps passed, then skipped by the script: no GPU on this machine") {
		t.Fatalf("reason = %q", v.Reason)
	}
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Render(context.Background(), []*Version{{Name: "next", Project: p, Results: rep}}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "runbook page", read(t, filepath.Join(out, "next", "runbooks", "gpu", "index.html")), "Partially verified", "2 of 4 passed")
	mustContain(t, "verification.json", read(t, filepath.Join(out, "next", "verification.json")), `"status": "partial"`, `"partial": 1`)
}

// TestVerifyInterrupted: a result of a run stopped by Ctrl-C (a report
// given with --report) verifies nothing and fails nothing: the page is
// not verified, with the reason.
func TestVerifyInterrupted(t *testing.T) {
	rb, err := runbook.Parse("a.md", []byte("# A\n\n```testscript\nexec sleep 60\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	res := &report.Runbook{Path: "a.md", Status: report.Interrupted, Reason: "interrupted while running exec sleep 60",
		SourceSHA256: runner.SourceSum(rb), Verified: time.Now(),
		Steps: []*report.Step{{Index: 1, Name: "A", Status: report.Interrupted, Reason: "interrupted while running exec sleep 60"}}}
	v, _ := Verify(rb, res)
	if v.Status != Unverified || v.Reason != "interrupted while running exec sleep 60" || v.Date != "" {
		t.Errorf("verification = %+v", v)
	}
}

// TestVerifyUnflagged: a result without its shell counts (a report of an
// older kbook) is counted from its steps, with the page's blocks that
// lack the run flag left out: partially verified, as the run said.
func TestVerifyUnflagged(t *testing.T) {
	rb, err := runbook.Parse("a.md", []byte("# A\n\n```bash\nexport N=1\n```\n\n```bash run\necho hi\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	res := &report.Runbook{Path: "a.md", Status: report.Passed, SourceSHA256: runner.SourceSum(rb), Verified: time.Now(),
		Steps: []*report.Step{{Index: 1, Name: "A", Status: report.Passed, Shell: &report.ShellBlock{Result: report.BlockPassed}}}}
	v, _ := Verify(rb, res)
	if v.Shell == nil || v.Shell.Unflagged != 1 || v.Shell.Verification != report.PartlyVerified {
		t.Errorf("shell counts = %+v", v.Shell)
	}
}
