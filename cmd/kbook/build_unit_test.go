package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/site"
)

// TestAllVersionsInterruptedExits130: an interrupted --all-versions build
// exits 130, as a single version's does, not as a failure, and leaves
// nothing in the output folder, even after Hugo's work ended.
func TestAllVersionsInterruptedExits130(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	t.Setenv(cache.EnvDir, t.TempDir())
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{
		"kbook.yaml":        "title: Docs\nversions:\n  - name: v0.1\n  - name: next\n",
		"content/_index.md": "---\ntitle: Home\n---\n\nHello.\n",
	})
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-qm", "docs"}, {"tag", "v0.1"}} {
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		c.Dir = repo
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errInterrupted)
	out := filepath.Join(t.TempDir(), "public")
	if code := execute(ctx, []string{"build", "--all-versions", "--no-search", "--out", out, repo}, os.Stdout, os.Stderr); code != findings.ExitInterrupted {
		t.Errorf("exit %d, want %d", code, findings.ExitInterrupted)
	}
	if _, err := os.Stat(filepath.Join(out, "next")); err == nil {
		t.Errorf("%s/next written by an interrupted build", out)
	}
	// Nothing is written after it returned either (Hugo's staging folder
	// public/.kbook-build-*/public/... was, by a build abandoned
	// in-process): not once every Hugo build this test ran has ended.
	site.WaitInProcessBuilds()
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		t.Errorf("%s holds %s after the interrupted build ended", out, entries[0].Name())
	}
}
