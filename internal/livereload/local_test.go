package livereload

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListenAddr(t *testing.T) {
	for in, want := range map[string]string{
		"":               "127.0.0.1:1313",
		":1313":          "127.0.0.1:1313",
		":0":             "127.0.0.1:0",
		"127.0.0.1:8080": "127.0.0.1:8080",
		"0.0.0.0:1313":   "0.0.0.0:1313",
		"[::1]:1313":     "[::1]:1313",
	} {
		if got := listenAddr(in); got != want {
			t.Errorf("listenAddr(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestServeBindsLoopback: with no host given, the server listens on
// 127.0.0.1 only.
func TestServeBindsLoopback(t *testing.T) {
	for _, addr := range []string{":0", "127.0.0.1:0"} {
		srv, err := New(Options{Root: t.TempDir(), Dir: t.TempDir(), Addr: addr, Build: func(context.Context, []string) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		ip := srv.ln.Addr().(*net.TCPAddr).IP
		srv.Close()
		if !ip.Equal(net.IPv4(127, 0, 0, 1)) {
			t.Errorf("Addr %q listened on %s, want 127.0.0.1", addr, ip)
		}
	}
}

// outside is what sits beside the served folder: no request may read it.
const (
	outsideSecret = "OUTSIDE-THE-SITE-SECRET"
	outside404    = "OUTSIDE-THE-SITE-404"
)

// traversalSite lays out parent/{secret.txt,404.html} and the served
// parent/site, with symbolic links from the site to its parent.
func traversalSite(t *testing.T) string {
	t.Helper()
	parent := t.TempDir()
	site := filepath.Join(parent, "site")
	for file, body := range map[string]string{
		"secret.txt": outsideSecret, "404.html": outside404,
		"site/index.html": "home", "site/404.html": "site 404", "site/v1/index.html": "v1 home", "site/v1/404.html": "v1 404",
	} {
		p := filepath.Join(parent, file)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"site/link.txt": "../secret.txt", "site/v1/up": "../.."} {
		if err := os.Symlink(target, filepath.Join(parent, link)); err != nil {
			t.Fatal(err)
		}
	}
	return site
}

// rawGet sends a request line as written (no client cleans or re-encodes
// it) and returns the status code and body.
func rawGet(t *testing.T, addr, target string, header ...string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := "GET " + target + " HTTP/1.1\r\nHost: " + addr + "\r\nConnection: close\r\n"
	for _, h := range header {
		req += h + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// traversals are request targets that try to leave the site folder:
// plain, percent-encoded (either case), encoded slashes, double-encoded,
// backslashes (raw and encoded) and symbolic links.
var traversals = []string{
	"/../secret.txt", "/v1/../../secret.txt", "//../secret.txt", "/./../secret.txt",
	"/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/.%2e/secret.txt", "/%2e%2e%2fsecret.txt", "/..%2fsecret.txt", "/..%2Fsecret.txt",
	"/v1/..%2f..%2fsecret.txt", "/%252e%252e/secret.txt", "/%252e%252e%252fsecret.txt",
	`/..\secret.txt`, `/v1\..\..\secret.txt`, "/..%5csecret.txt", "/%5c..%5csecret.txt", "/%2e%2e%5csecret.txt",
	"/../nowhere", "/%2e%2e/nowhere", "/..%2f404.html", "/../404.html",
	"/link.txt", "/v1/up/secret.txt", "/v1/up/404.html", "/v1/up/site/../secret.txt",
	"/secret.txt%00", "/%00../secret.txt",
}

func TestStaticStaysInSite(t *testing.T) {
	site := traversalSite(t)
	srv := httptest.NewServer(Static(site))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	checkTraversals(t, addr)
	// The site itself is still served.
	if code, body := rawGet(t, addr, "/v1/"); code != 200 || body != "v1 home" {
		t.Errorf("GET /v1/ = %d %q", code, body)
	}
}

func TestServeStaysInSite(t *testing.T) {
	site := traversalSite(t)
	srv := startServer(t, site)
	checkTraversals(t, srv.ln.Addr().String())
}

func checkTraversals(t *testing.T, addr string) {
	t.Helper()
	for _, target := range traversals {
		code, body := rawGet(t, addr, target)
		if strings.Contains(body, outsideSecret) || strings.Contains(body, outside404) || code == http.StatusOK {
			t.Errorf("GET %s = %d %q: left the site folder", target, code, body)
		}
	}
}

// startServer runs a Server on dir (its Build makes nothing) until the
// test ends.
func startServer(t *testing.T, dir string) *Server {
	t.Helper()
	srv, err := New(Options{Root: t.TempDir(), Dir: dir, Addr: "127.0.0.1:0", Build: func(context.Context, []string) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return srv
}

// TestServeRefusesOtherHosts: DNS rebinding. A page of another site whose
// name resolves to 127.0.0.1 reaches the server with its own name in
// Host, and the event stream with its own Origin: both are refused; the
// server's own names and pages are answered.
func TestServeRefusesOtherHosts(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("home"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, dir)
	addr := srv.ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	for _, c := range []struct {
		target string
		header []string
		want   int
	}{
		{"/", nil, 200},
		{"/", []string{"Host: localhost:" + port}, 200},
		{"/", []string{"Host: evil.example:" + port}, 403},
		{"/", []string{"Host: localhost.evil.example:" + port}, 403},
		{EventsPath, []string{"Host: evil.example:" + port}, 403},
		{EventsPath, []string{"Host: 127.0.0.1.nip.io:" + port}, 403},
		{EventsPath, []string{"Origin: http://evil.example:" + port}, 403},
		{EventsPath, []string{"Origin: http://127.0.0.1:" + port + ".evil.example"}, 403},
		{EventsPath, []string{"Origin: http://localhost:1"}, 403},
		{EventsPath, []string{"Origin: https://localhost:" + port}, 403},
		{EventsPath, []string{"Origin: null"}, 403},
	} {
		// rawGet sends its own Host first; a second Host header is a
		// 400, so a test's Host replaces it.
		target, hdr := c.target, c.header
		code := 0
		if len(hdr) == 1 && strings.HasPrefix(hdr[0], "Host: ") {
			code = hostGet(t, addr, target, strings.TrimPrefix(hdr[0], "Host: "))
		} else {
			code, _ = rawGet(t, addr, target, hdr...)
		}
		if code != c.want {
			t.Errorf("GET %s %v = %d, want %d", target, hdr, code, c.want)
		}
	}
	// The server's own pages get the stream.
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+EventsPath, nil)
	req.Header.Set("Origin", "http://localhost:"+port)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	resp.Body.Close()
	if resp.StatusCode != 200 || line != "retry: 500\n" {
		t.Errorf("event stream from the site's own origin: %d %q", resp.StatusCode, line)
	}
}

// hostGet is a GET with the given Host header; it returns the status
// code without reading the body (the event stream does not end).
func hostGet(t *testing.T, addr, target, host string) int {
	t.Helper()
	u := &url.URL{Scheme: "http", Host: addr, Path: target}
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestAllowedHost(t *testing.T) {
	for _, c := range []struct {
		host, bind string
		want       bool
	}{
		{"localhost:1313", "127.0.0.1", true},
		{"LOCALHOST.:1313", "127.0.0.1", true},
		{"docs.localhost:1313", "127.0.0.1", true},
		{"127.0.0.1:1313", "127.0.0.1", true},
		{"[::1]:1313", "::1", true},
		{"192.168.1.5:1313", "0.0.0.0", true},
		{"devbox:1313", "devbox", true},
		{"evil.example:1313", "127.0.0.1", false},
		{"localhost.evil.example", "127.0.0.1", false},
		{"", "127.0.0.1", false},
	} {
		if got := allowedHost(c.host, c.bind); got != c.want {
			t.Errorf("allowedHost(%q, %q) = %v, want %v", c.host, c.bind, got, c.want)
		}
	}
}
