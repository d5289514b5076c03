package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeRun: kbook serve --run, the real command. The runbooks run at
// start (the page shows the captured output); saving a changed runbook
// runs it again and its page shows the new output; Ctrl-C stops the
// server and removes the served folder.
func TestServeRun(t *testing.T) {
	r := newSiteRun(t)
	docs := t.TempDir()
	rb := "---\ntitle: Hello\n---\n\n```testscript\nexec echo first-output\nstdout first-output\n```\n"
	writeFiles(t, docs, map[string]string{
		"content/_index.md": "---\ntitle: Home\n---\n\nHello.\n",
		"runbooks/hello.md": rb,
	})
	serve, line := r.startLine(docs, "serving", "serve", "--run", "--port", "0")
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("no address in %q", line)
	}
	url := strings.Fields(line[i:])[0] + "next/runbooks/hello/"
	// No --bind: loopback only (issue 18).
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("kbook serve without --bind serves on %s, want 127.0.0.1", url)
	}
	served := r.glob(filepath.Join(r.cache, "procs", "*", "tmp", "kbook-serve-*"))
	if len(served) != 1 {
		t.Fatalf("served folders: %v, want one", served)
	}

	page := func() string {
		resp, err := http.Get(url)
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	waitFor := func(what string, wants ...string) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			got := page()
			ok := true
			for _, w := range wants {
				ok = ok && strings.Contains(got, w)
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the page never showed %q:\n%s", what, wants, got)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("at start", `kb-badge-verified`, `<span class="kb-out">first-output</span>`)

	start := time.Now()
	if err := os.WriteFile(filepath.Join(docs, "runbooks", "hello.md"), []byte(strings.ReplaceAll(rb, "first-output", "second-output")), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor("after the save", `kb-badge-verified`, `<span class="kb-out">second-output</span>`)
	t.Logf("save to the page showing the new run: %s", time.Since(start).Round(time.Millisecond))

	if err := serve.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("kbook serve did not stop on SIGINT")
	}
	for _, d := range served {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("served folder %s is still there after Ctrl-C (%v)", d, err)
		}
	}
}
