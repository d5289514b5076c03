package serve

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/livereload"
)

// TestServeHugoError: with the real site build, a Hugo error (a shortcode
// that fails) is shown in the browser with its file:line, and the next
// save that fixes it rebuilds the site and reloads the page.
func TestServeHugoError(t *testing.T) {
	root := filepath.Join(t.TempDir(), "docs")
	if err := os.CopyFS(root, os.DirFS("testdata/hugoerror")); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	live := &Live{Dir: root, Out: out, LiveReload: livereload.EventsPath}
	srv, err := livereload.New(livereload.Options{Root: root, Watch: []string{"content", "site"}, Dir: out, Addr: "127.0.0.1:0", Build: live.Build})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	resp, err := http.Get(srv.URL() + strings.TrimPrefix(livereload.EventsPath, "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewScanner(resp.Body)
	next := func(kind string) string {
		t.Helper()
		for events.Scan() {
			if events.Text() == "event: "+kind && events.Scan() {
				return strings.TrimPrefix(events.Text(), "data: ")
			}
		}
		t.Fatalf("event stream ended before a %s event: %v", kind, events.Err())
		return ""
	}
	msg := next("failed")
	if !strings.Contains(msg, "site/layouts/_shortcodes/boom.html:1") || strings.Contains(msg, ".kbook-build-") {
		t.Fatalf("failed event = %q", msg)
	}
	page := get(t, srv.URL()+"next/p/")
	if !strings.Contains(page, "boom.html:1") {
		t.Fatalf("the browser is not shown the error: %q", page)
	}
	if err := os.WriteFile(filepath.Join(root, "site", "layouts", "_shortcodes", "boom.html"), []byte("Fixed.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	next("reload")
	if page := get(t, srv.URL()+"next/p/"); !strings.Contains(page, "Fixed.") {
		t.Fatalf("after the fix the page is %q", page)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return string(data)
}
