//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/k0rdent/kbook/internal/livereload"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/serve"
	"github.com/k0rdent/kbook/internal/site"
)

// startServe runs kbook serve's server on the fixture, on a free port,
// with kbook serve's serve.Live; run re-runs changed runbooks in-process,
// as kbook serve --run does.
func startServe(t testing.TB, dir string, run bool) *livereload.Server {
	t.Helper()
	live := &serve.Live{Dir: dir, Out: t.TempDir(), LiveReload: livereload.EventsPath}
	if run {
		p, err := site.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		live.SetResults(results(t, p))
		live.Run = serve.RunInProcess(runner.Options{Parallel: 1, Version: "test"})
	}
	srv, err := livereload.New(livereload.Options{Root: dir, Watch: []string{"content", "runbooks", "site"}, Dir: live.Out, Addr: "127.0.0.1:0", Build: live.Build})
	if err != nil {
		t.Fatal(err)
	}
	live.Rebuild = func() { srv.Rebuild() }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		live.Wait()
	})
	return srv
}

func waitText(t testing.TB, ctx context.Context, sel, text string, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < limit {
		tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		got, err := chromedp.Run(tctx, chromedp.Evaluate[string](`(document.querySelector(`+quote(sel)+`) || {}).innerText || ""`))
		cancel()
		if err == nil && strings.Contains(got, text) {
			return time.Since(start)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%q never showed %q", sel, text)
	return 0
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

func TestServeLiveReload(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: not in -short")
	}
	ctx := browser(t)
	dir := fixture(t)
	srv := startServe(t, dir, false)
	run(t, ctx, "open", chromedp.Navigate(srv.URL()+"next/guide/intro/"), chromedp.WaitVisible(css(".kb-content")))
	run(t, ctx, "live reload connects", chromedp.WaitReady(css("html[data-kb-live]")))

	page := filepath.Join(dir, "content", "guide", "intro.md")
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// An editor's swap file changes nothing.
	if err := os.WriteFile(filepath.Join(dir, "content", "guide", ".intro.md.swp"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit := func(s string) {
		t.Helper()
		if err := os.WriteFile(page, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(string(src) + "\nA freshly saved sentence.\n")
	took := waitText(t, ctx, ".kb-content", "A freshly saved sentence.", 15*time.Second)
	t.Logf("save-to-reload: %s", took.Round(time.Millisecond))

	// A broken link: the page shows the error with its file:line and
	// the server keeps going.
	edit(string(src) + "\nA [broken](missing.md) link.\n")
	waitText(t, ctx, "#kb-error", "content/guide/intro.md:", 15*time.Second)
	edit(string(src) + "\nFixed again.\n")
	waitText(t, ctx, ".kb-content", "Fixed again.", 15*time.Second)

	// A new folder of pages is watched as it appears: its page is built,
	// and a later save in the folder rebuilds (no sleep between the
	// steps: the folder is watched from its create event on, and a page
	// written before that is in the build that event starts).
	extra := filepath.Join(dir, "content", "extra")
	if err := os.MkdirAll(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(extra, "more.md"), []byte("---\ntitle: More\n---\n\nMore text here.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit(string(src) + "\nSee [more](../extra/more.md).\n")
	waitText(t, ctx, ".kb-content", "See more.", 15*time.Second)
	run(t, ctx, "follow", chromedp.Click(css(`.kb-content a[href$="/extra/more/"]`)))
	waitText(t, ctx, ".kb-content", "More text here.", 15*time.Second)
	if err := os.WriteFile(filepath.Join(extra, "more.md"), []byte("---\ntitle: More\n---\n\nMore text, saved again.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, ".kb-content", "More text, saved again.", 15*time.Second)
}

// TestServeRun: with --run, saving a runbook runs it again and its page
// shows the new result (the badge, the captured output) without a reload
// by hand.
func TestServeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: not in -short")
	}
	ctx := browser(t)
	dir := fixture(t)
	srv := startServe(t, dir, true)
	run(t, ctx, "open", chromedp.Navigate(srv.URL()+"next/runbooks/hello/"), chromedp.WaitVisible(css(".kb-verify")))
	if got := get(t, ctx, "first output", chromedp.Text(css("#step-1 .kb-out"))); got != "hello" {
		t.Fatalf("first step's output %q, want hello", got)
	}
	run(t, ctx, "live reload connects", chromedp.WaitReady(css("html[data-kb-live]")))

	file := filepath.Join(dir, "runbooks", "hello.md")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(strings.Replace(string(src), "exec echo hello", "exec echo goodbye", 1), "```text file=want.txt\nhello", "```text file=want.txt\ngoodbye", 1)
	if edited == string(src) {
		t.Fatal("the fixture runbook changed: nothing to edit")
	}
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	took := waitText(t, ctx, "#step-1 .kb-out", "goodbye", 60*time.Second)
	t.Logf("save-to-new-result: %s", took.Round(time.Millisecond))
	if badge := get(t, ctx, "badge", chromedp.Text(css(".kb-verify .kb-badge"))); badge != "Verified" {
		t.Errorf("badge after the re-run %q, want Verified", badge)
	}

	// A failing edit: the page shows the failure.
	failing := strings.Replace(edited, "exec echo goodbye", "exec echo farewell", 1)
	if err := os.WriteFile(file, []byte(failing), 0o644); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "#step-1 .kb-out", "farewell", 60*time.Second)
	if badge := get(t, ctx, "badge", chromedp.Text(css(".kb-verify .kb-badge"))); badge != "Failed" {
		t.Errorf("badge after a failing re-run %q, want Failed", badge)
	}
}
