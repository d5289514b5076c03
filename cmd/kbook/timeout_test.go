package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/report"
)

// TestTimeoutOnTime checks that a runbook's time limit stops it when it
// is up, not before (a 3s limit used to stop at 2.7s while the message
// said 3s): for a program it runs and for kbook's own waiting commands.
func TestTimeoutOnTime(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sleep.md", "---\ntimeout: 2s\n---\n```testscript\nexec sleep 30\n```\n")
	write("quick.md", "---\ntimeout: 400ms\n---\n```testscript\nexec sleep 30\n```\n")
	cmd := exec.Command(kbookBin, "run", "--no-cache", "--cluster", "none", "--json", "r.json", "sleep.md", "quick.md")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KBOOK_CACHE_DIR="+filepath.Join(dir, "cache"))
	out, err := cmd.CombinedOutput()
	if exitCodeOf(err) != 1 {
		t.Fatalf("exit %v, want 1\n%s", err, out)
	}
	rep, err := report.ReadJSON(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rb := range rep.Runbooks {
		limit := 2 * time.Second
		if rb.Path == "quick.md" {
			limit = 400 * time.Millisecond
		}
		want := "timed out after " + limit.String()
		if !strings.HasPrefix(rb.Reason, want) {
			t.Errorf("%s: reason %q, want %q...", rb.Path, rb.Reason, want)
		}
		// The limit counts from the runbook's start, so the runbook's
		// duration is what must reach it; the sleep itself started some
		// unknown time later (more on a loaded machine), so its own
		// duration only shows it was the command stopped.
		if rb.Duration < limit {
			t.Errorf("%s: stopped after %s, before its %s limit", rb.Path, rb.Duration, limit)
		}
		if sleep := rb.Steps[0].Commands[0]; sleep.Duration <= 0 || sleep.Duration >= 30*time.Second {
			t.Errorf("%s: the sleep ran %s, want it stopped by the limit", rb.Path, sleep.Duration)
		}
		// Generous: only a limit that did not fire at all fails this.
		if rb.Duration > limit+10*time.Second {
			t.Errorf("%s: stopped after %s, long after its %s limit", rb.Path, rb.Duration, limit)
		}
	}
}
