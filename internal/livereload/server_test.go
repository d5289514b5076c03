package livereload

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestTempFile(t *testing.T) {
	for name, want := range map[string]bool{
		"intro.md": false, "kbook.yaml": false, "sed.md": false,
		"intro.md~": true, ".intro.md.swp": true, ".#intro.md": true, "#intro.md#": true,
		"4913": true, "intro.md___jb_tmp___": true, "sedAb12Xz": true, "x.tmp": true,
	} {
		if got := TempFile(name); got != want {
			t.Errorf("TempFile(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestStatic(t *testing.T) {
	dir := t.TempDir()
	for file, body := range map[string]string{
		"index.html": "root", "v1/index.html": "home", "v1/404.html": "v1 missing", "404.html": "root missing", "v1/a/index.html": "page a",
	} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(file)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(Static(dir))
	defer srv.Close()
	for path, want := range map[string]string{"/v1/a/": "200 page a", "/v1/nope/": "404 v1 missing", "/other/": "404 root missing"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.Fields(resp.Status)[0] + " " + string(body); got != want {
			t.Errorf("GET %s = %q, want %q", path, got, want)
		}
	}
}

// TestServeRebuilds: a save rebuilds once (debounced), a temp file never,
// a failed build reaches the event stream, and Serve returns on cancel.
func TestServeRebuilds(t *testing.T) {
	root := t.TempDir()
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "content"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Each build says what changed and what a.md held when it ran.
	type build struct {
		changed []string
		a       string
	}
	builds := make(chan build, 10)
	var fail atomic.Bool
	srv, err := New(Options{Root: root, Watch: []string{"content"}, Dir: out, Addr: "127.0.0.1:0", Debounce: time.Second, // three saves in a row fall in one window even on a loaded machine
		Build: func(ctx context.Context, changed []string) error {
			a, _ := os.ReadFile(filepath.Join(root, "content", "a.md"))
			builds <- build{changed, string(a)}
			if fail.Load() {
				return &buildErr{"content/a.md:3: broken"}
			}
			return os.WriteFile(filepath.Join(out, "index.html"), []byte("ok"), 0o644)
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	if got := <-builds; got.changed != nil {
		t.Fatalf("first build changed = %v", got.changed)
	}
	resp, err := http.Get(srv.URL() + strings.TrimPrefix(EventsPath, "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for i := 0; i < 3; i++ {
		if err := os.WriteFile(filepath.Join(root, "content", "a.md"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(root, "content", ".a.md.swp"), []byte("x"), 0o644)
	select {
	case got := <-builds:
		if len(got.changed) != 1 || filepath.Base(got.changed[0]) != "a.md" {
			t.Errorf("rebuild changed = %v", got.changed)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no rebuild after a save")
	}
	// The next build is the one for the next save: a second build for
	// the three saves would have read their "x".
	fail.Store(true)
	_ = os.WriteFile(filepath.Join(root, "content", "a.md"), []byte("y"), 0o644)
	if got := <-builds; got.a != "y" {
		t.Errorf("a second rebuild for the three saves (%v, a.md %q)", got.changed, got.a)
	}
	buf := make([]byte, 4096)
	var seen strings.Builder
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(seen.String(), "event: failed\ndata: content/a.md:3: broken") && time.Now().Before(deadline) {
		n, err := resp.Body.Read(buf)
		seen.Write(buf[:n])
		if err != nil {
			break
		}
	}
	// A page that connects learns the newest good build (the first one),
	// so that one that missed a reload while reloading reloads again.
	if !strings.HasPrefix(seen.String(), "retry: 500\n\nevent: built\ndata: 1\n") ||
		!strings.Contains(seen.String(), "event: reload") || !strings.Contains(seen.String(), "event: failed\ndata: content/a.md:3: broken") {
		t.Errorf("event stream: %q", seen.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

type buildErr struct{ s string }

func (e *buildErr) Error() string { return e.s }
