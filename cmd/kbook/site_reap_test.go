package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// siteRun runs kbook with a cache (and so a process registry) of its own.
type siteRun struct {
	t     *testing.T
	cache string
	tmp   string // TMPDIR of the kbook it starts
}

func newSiteRun(t *testing.T) *siteRun {
	t.Helper()
	if testing.Short() {
		t.Skip("kills kbook processes; skipped with -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("kill -9 and the parent-death signal are Linux's")
	}
	return &siteRun{t: t, cache: t.TempDir(), tmp: t.TempDir()}
}

func (r *siteRun) command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(kbookBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KBOOK_CACHE_DIR="+r.cache, "TMPDIR="+r.tmp, "CI=true")
	dieWithTest(cmd)
	return cmd
}

// startUntil starts kbook and returns once a line of its output contains
// want; the rest of the output is drained.
func (r *siteRun) startUntil(dir, want string, args ...string) *exec.Cmd {
	r.t.Helper()
	cmd, _ := r.startLine(dir, want, args...)
	return cmd
}

// startLine is startUntil that also returns the line containing want.
func (r *siteRun) startLine(dir, want string, args ...string) (*exec.Cmd, string) {
	r.t.Helper()
	cmd := r.command(dir, args...)
	pr, pw, err := os.Pipe()
	if err != nil {
		r.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	pw.Close()
	r.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string)
	var seen []string
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				r.t.Fatalf("kbook %s ended before printing %q:\n%s", strings.Join(args, " "), want, strings.Join(seen, "\n"))
			}
			seen = append(seen, l)
			if strings.Contains(l, want) {
				go func() {
					for range lines {
					}
				}()
				return cmd, l
			}
		case <-deadline:
			r.t.Fatalf("kbook %s never printed %q", strings.Join(args, " "), want)
		}
	}
}

// kill9 kills kbook with SIGKILL: it can clean up nothing.
func (r *siteRun) kill9(cmd *exec.Cmd) {
	r.t.Helper()
	if err := cmd.Process.Kill(); err != nil {
		r.t.Fatal(err)
	}
	_ = cmd.Wait()
}

func (r *siteRun) glob(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	return m
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestServeKilledLeavesNothing: the folder kbook serve serves from is in
// kbook's process registry, so after kill -9 the next kbook removes it.
func TestServeKilledLeavesNothing(t *testing.T) {
	r := newSiteRun(t)
	docs := t.TempDir()
	writeFiles(t, docs, map[string]string{"content/_index.md": "---\ntitle: Home\n---\n\nHello.\n"})
	serve := r.startUntil(docs, "serving", "serve", "--port", "0")
	served := r.glob(filepath.Join(r.cache, "procs", "*", "tmp", "kbook-serve-*"))
	if len(served) != 1 {
		t.Fatalf("served folders in the registry: %v, want one", served)
	}
	r.kill9(serve)
	if _, err := os.Stat(served[0]); err != nil {
		t.Fatalf("the served folder is gone before any sweep: %v", err)
	}
	out, err := r.command(docs, "build", "--no-run", "--no-search", "--out", filepath.Join(t.TempDir(), "public")).CombinedOutput()
	if err != nil {
		t.Fatalf("kbook build: %v\n%s", err, out)
	}
	if _, err := os.Stat(served[0]); !os.IsNotExist(err) {
		t.Errorf("the killed serve's folder %s is still there after the next kbook (%v)\n%s", served[0], err, out)
	}
	if !strings.Contains(string(out), "cleaned up after kbook") {
		t.Errorf("the next kbook did not say it cleaned up:\n%s", out)
	}
}

// TestAllVersionsKilledLeavesNothing: kbook build --all-versions killed
// while a version's runbook runs leaves git worktrees in OUT; the next
// kbook removes them, and the next --all-versions builds cleanly.
func TestAllVersionsKilledLeavesNothing(t *testing.T) {
	r := newSiteRun(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	repo := t.TempDir()
	arg := fmt.Sprintf("%d.%06d", 30+os.Getpid()%20, time.Now().Nanosecond()/1000)
	writeFiles(t, repo, map[string]string{
		"kbook.yaml":        "title: Docs\nversions:\n  - name: v0.1\n  - name: next\n",
		"content/_index.md": "---\ntitle: Home\n---\n\nHello.\n",
		"runbooks/slow.md":  "---\ntitle: Slow\n---\n\n```testscript\nexec sleep " + arg + "\n```\n",
	})
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-qm", "docs")
	git("tag", "v0.1")
	out := filepath.Join(t.TempDir(), "public")
	// Every version's worktree is checked out before the first runbook
	// (next's) runs: kill it while that runbook sleeps.
	build := r.startUntil(repo, "next: runbooks", "build", "--all-versions", "--no-search", "-p", "1", "--out", out)
	for deadline := time.Now().Add(30 * time.Second); !sleeping(arg); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the runbook's sleep %s never started", arg)
		}
	}
	worktrees := r.glob(filepath.Join(out, ".kbook-build-worktrees-*"))
	if len(worktrees) != 1 {
		t.Fatalf("worktree folders in OUT: %v, want one", worktrees)
	}
	r.kill9(build)
	if res, err := r.command(repo, "build", "--no-run", "--no-search", "--out", filepath.Join(t.TempDir(), "other")).CombinedOutput(); err != nil {
		t.Fatalf("kbook build: %v\n%s", err, res)
	}
	if left := r.glob(filepath.Join(out, ".kbook-build-*")); len(left) > 0 {
		t.Errorf("left in OUT after the next kbook: %v", left)
	}
	if sleeping(arg) {
		t.Errorf("the killed build's runbook (sleep %s) still runs after the next kbook", arg)
	}
	if left, _ := os.ReadDir(r.tmp); len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("left in TMPDIR by the killed build after the next kbook: %v", names)
	}
	// git forgets the removed worktrees, and the next build makes its own.
	if res, err := r.command(repo, "build", "--all-versions", "--no-run", "--no-search", "--out", out).CombinedOutput(); err != nil {
		t.Fatalf("kbook build --all-versions after the kill: %v\n%s", err, res)
	}
	if left := r.glob(filepath.Join(out, ".kbook-build-*")); len(left) > 0 {
		t.Errorf("left in OUT after a build that ended: %v", left)
	}
	cmd := exec.Command("git", "worktree", "list")
	cmd.Dir = repo
	if list, err := cmd.Output(); err != nil || strings.Count(string(list), "\n") != 1 {
		t.Errorf("git worktree list after the builds (%v):\n%s", err, list)
	}
}

// sleeping reports whether a sleep process with the argument runs.
func sleeping(arg string) bool {
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		if len(args) == 2 && filepath.Base(args[0]) == "sleep" && args[1] == arg {
			if st, err := os.ReadFile(filepath.Join(filepath.Dir(f), "stat")); err == nil && !strings.Contains(string(st), ") Z ") {
				return true
			}
		}
	}
	return false
}
