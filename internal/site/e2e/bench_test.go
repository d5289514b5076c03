//go:build e2e

package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/livereload"
)

// BenchmarkServeSaveToReload: from writing a page to the open browser's
// reload event and the fetch of the rebuilt page showing the new text (the
// browser test measures the same with Chromium; this one needs none).
// The 150 ms debounce is part of it.
func BenchmarkServeSaveToReload(b *testing.B) {
	dir := fixture(b)
	srv := startServe(b, dir, false)
	events := eventStream(b, srv)
	page := filepath.Join(dir, "content", "guide", "intro.md")
	src, err := os.ReadFile(page)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		marker := fmt.Sprintf("Saved edit number %d.", i)
		start := time.Now()
		if err := os.WriteFile(page, append(append([]byte{}, src...), "\n"+marker+"\n"...), 0o644); err != nil {
			b.Fatal(err)
		}
		if !reloadShows(b, srv, events, "next/guide/intro/", marker) {
			b.Fatalf("the page after reload lacks %q", marker)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "save-to-reload-ms")
}

// BenchmarkServeRunSaveToResult: kbook serve --run, from saving a changed
// runbook to its page showing the new run's output (the page first reloads
// with the new text, marked not verified, then again with the result).
func BenchmarkServeRunSaveToResult(b *testing.B) {
	dir := fixture(b)
	srv := startServe(b, dir, true)
	events := eventStream(b, srv)
	file := filepath.Join(dir, "runbooks", "hello.md")
	src, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		word := fmt.Sprintf("hello%d", i)
		edited := strings.ReplaceAll(string(src), "hello\n", word+"\n")
		start := time.Now()
		if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
			b.Fatal(err)
		}
		for !reloadShows(b, srv, events, "next/runbooks/hello/", `<span class="kb-badge kb-badge-verified">`) {
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "save-to-result-ms")
}

// eventStream follows serve's reload events.
func eventStream(b *testing.B, srv *livereload.Server) <-chan string {
	resp, err := http.Get(srv.URL() + strings.TrimPrefix(livereload.EventsPath, "/"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { resp.Body.Close() })
	events := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, "event: ") {
				events <- strings.TrimPrefix(l, "event: ")
			}
		}
	}()
	return events
}

// reloadShows waits for the next reload event and tells whether the page
// then contains want.
func reloadShows(b *testing.B, srv *livereload.Server, events <-chan string, page, want string) bool {
	for ev := range events {
		if ev == "reload" {
			break
		}
		if ev == "failed" {
			b.Fatal("the rebuild failed")
		}
	}
	r, err := http.Get(srv.URL() + page)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	return strings.Contains(string(body), want)
}
