package runner

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/overlay"
	"github.com/k0rdent/kbook/internal/report"
)

// TestShellCannotRunHere: a block that needs what the run does not have
// is skipped with its reason, the blocks that use what it would have made
// are skipped after it, and an undeclared failure stays a failure.
func TestShellCannotRunHere(t *testing.T) {
	root := isRoot
	isRoot = false // the sudo rule is the one of a user who is not root
	t.Cleanup(func() { isRoot = root })
	type block struct {
		line   int
		result string
		reason string // a part of the step's reason
		after  int
	}
	for _, tc := range []struct {
		page    string
		offline bool
		status  report.Status
		verdict string
		blocks  []block
	}{
		{"missing.md", false, report.Passed, report.PartlyVerified, []block{
			{5, report.BlockSkipped, "needs kbook-missing-tool, which is not on PATH", 0},
			{9, report.BlockPassed, "", 0},
		}},
		{"sudo.md", false, report.Passed, report.PartlyVerified, []block{
			{5, report.BlockSkipped, "runs sudo (line 7), and this run is not root", 0},
			{10, report.BlockPassed, "", 0},
		}},
		{"offline.md", true, report.Passed, report.PartlyVerified, []block{
			{5, report.BlockSkipped, "downloads from the internet (https://example.com/tool.tar.gz, line 6), and this run is --offline", 0},
			{9, report.BlockSkipped, "after L5: it uses tool.tar.gz, which only the block at line 5 writes", 5},
			{13, report.BlockPassed, "", 0},
		}},
		{"depends.md", false, report.Passed, report.PartlyVerified, []block{
			{7, report.BlockSkipped, "needs kbook-missing-cloud, which is not on PATH", 0},
			{12, report.BlockSkipped, "after L7: it uses $CLUSTER, which only the block at line 7 sets", 7},
			{16, report.BlockSkipped, "after L7: it runs deploy, which only the block at line 7 defines", 7},
			{20, report.BlockPassed, "", 0}, // ${REGION:-...} handles it unset
		}},
		{"fail.md", false, report.Failed, "", []block{
			{5, report.BlockFailed, "", 0},
			{9, report.BlockSkipped, "an earlier step failed", 0},
		}},
		{"declared.md", false, report.Passed, report.PartlyVerified, []block{
			{5, report.BlockSkipped, "needs an AWS account (its skip= attribute)", 0},
			{9, report.BlockProvided, "", 0},
			{13, report.BlockPassed, "", 0},
		}},
	} {
		t.Run(tc.page, func(t *testing.T) {
			r, err := New(Options{Parallel: 1, Offline: tc.offline})
			if err != nil {
				t.Fatal(err)
			}
			res := r.Run(context.Background(), load(t, "testdata/shell/cannot/"+tc.page)).Runbooks[0]
			if res.Status != tc.status || res.Shell == nil || res.Shell.Verification != tc.verdict {
				t.Fatalf("status %s, shell %+v; want %s, %q:\n%s", res.Status, res.Shell, tc.status, tc.verdict, dumpResult(res))
			}
			if len(res.Steps) != len(tc.blocks) {
				t.Fatalf("%d steps, want %d:\n%s", len(res.Steps), len(tc.blocks), dumpResult(res))
			}
			for i, w := range tc.blocks {
				st := res.Steps[i]
				if st.Line != w.line || st.Shell == nil || st.Shell.Result != w.result || !strings.Contains(st.Reason, w.reason) || st.Shell.After != w.after {
					t.Errorf("block %d: line %d %+v reason %q; want line %d %s after %d, reason with %q", i+1, st.Line, st.Shell, st.Reason, w.line, w.result, w.after, w.reason)
				}
				if (w.result == report.BlockSkipped) != (st.Status == report.Skipped) {
					t.Errorf("block %d: step status %s for a %s block", i+1, st.Status, w.result)
				}
			}
		})
	}
}

// TestShellOverlay: each action of an overlay, on the blocks its rules
// match, without editing the page.
func TestShellOverlay(t *testing.T) {
	ov, err := overlay.Load("testdata/shell/overlay/overlay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rbs := load(t, "testdata/shell/overlay/page.md")
	if err := ov.Apply(rbs, "testdata/shell/overlay"); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Run(context.Background(), rbs).Runbooks[0]
	if res.Status != report.Passed || res.Shell == nil || res.Shell.Verification != report.PartlyVerified {
		t.Fatalf("status %s, shell %+v:\n%s", res.Status, res.Shell, dumpResult(res))
	}
	by := func(line int) string { return "testdata/shell/overlay/overlay.yaml:" + strconv.Itoa(line) }
	for i, w := range []struct {
		result, mode, note, by, stdout string
	}{
		{report.BlockSkipped, "", "", by(4), ""},
		{report.BlockProvided, "", "the run's cluster is the cluster k0s would install", by(8), ""},
		{report.BlockProvided, "", "run without sudo", by(11), "installed\n"},
		{report.BlockProvided, "", "a stand-in for the cloud CLI", by(15), "stand-in\n"},
		{report.BlockPassed, "exact", "", by(20), "region eu-west-1\n"},
		{report.BlockRan, "illustrative", "", by(25), "something else\n"},
	} {
		st := res.Steps[i]
		sh := st.Shell
		if sh == nil || sh.Result != w.result || sh.Mode != w.mode || sh.Note != w.note || sh.By != w.by {
			t.Errorf("block %d at %d: %+v, want %s %q note %q by %s", i+1, st.Line, sh, w.result, w.mode, w.note, w.by)
			continue
		}
		var out string
		if len(st.Commands) > 0 {
			out = st.Commands[0].Stdout
		}
		if out != w.stdout {
			t.Errorf("block %d printed %q, want %q", i+1, out, w.stdout)
		}
	}
	if st := res.Steps[0]; st.Status != report.Skipped || st.Reason != "needs a cloud account ("+by(4)+")" {
		t.Errorf("skipped block: %s %q", st.Status, st.Reason)
	}
}
