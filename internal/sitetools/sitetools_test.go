package sitetools

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tgz packs files (slash path -> content; a path ending in "*" is
// executable, the star dropped) under package/, as npm pack does.
func tgz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, content := range files {
		mode := int64(0o644)
		if n, ok := strings.CutSuffix(name, "*"); ok {
			name, mode = n, 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + name, Typeflag: tar.TypeReg, Mode: mode, Size: int64(len(content))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func integrity(b []byte) string {
	d := sha512.Sum512(b)
	return sri(d[:])
}

// registry is an npm registry served in process: one package, one
// version. Its fields may be changed before the first request.
type registry struct {
	srv  *httptest.Server
	name string
	// tarball is served at the URL dist.tarball names; meta is the
	// integrity dist.integrity says (default: the tarball's).
	tarball []byte
	meta    string
	// serve, when set, writes the tarball's response instead.
	serve func(w http.ResponseWriter, r *http.Request)
	// status, when set, answers every request.
	status    int
	metaGets  atomic.Int32
	tarGets   atomic.Int32
	accept    atomic.Value
	tarballAt string
}

func newRegistry(t *testing.T, name string, tarball []byte) *registry {
	r := &registry{name: name, tarball: tarball}
	r.srv = httptest.NewServer(http.HandlerFunc(r.handle))
	t.Cleanup(r.srv.Close)
	base := name
	if _, rest, ok := strings.Cut(name, "/"); ok {
		base = rest
	}
	r.tarballAt = "/" + name + "/-/" + base + "-1.0.0.tgz"
	return r
}

func (r *registry) handle(w http.ResponseWriter, req *http.Request) {
	if r.status != 0 {
		http.Error(w, http.StatusText(r.status), r.status)
		return
	}
	switch req.URL.Path {
	case "/" + r.name:
		// npm escapes a scoped name's slash; so must kbook.
		if strings.Contains(r.name, "/") && !strings.Contains(req.URL.EscapedPath(), "%2f") {
			http.Error(w, "unescaped scoped name", http.StatusNotFound)
			return
		}
		r.metaGets.Add(1)
		r.accept.Store(req.Header.Get("Accept"))
		meta := r.meta
		if meta == "" {
			meta = integrity(r.tarball)
		}
		doc := map[string]any{"name": r.name, "versions": map[string]any{
			"0.9.0": map[string]any{"dist": map[string]any{"tarball": r.srv.URL + "/old.tgz", "integrity": "sha512-AAAA"}},
			"1.0.0": map[string]any{"dist": map[string]any{"tarball": r.srv.URL + r.tarballAt, "integrity": meta + " sha1-AAAA"}},
		}}
		_ = json.NewEncoder(w).Encode(doc)
	case r.tarballAt:
		r.tarGets.Add(1)
		if r.serve != nil {
			r.serve(w, req)
			return
		}
		_, _ = w.Write(r.tarball)
	default:
		http.NotFound(w, req)
	}
}

func (r *registry) client(t *testing.T) *Client {
	return &Client{Registry: r.srv.URL, Dir: filepath.Join(t.TempDir(), "store")}
}

// pkg is the package the registry serves, pinned at the tarball's hash.
func (r *registry) pkg(keep ...string) Package {
	return Package{Name: r.name, Version: "1.0.0", Integrity: integrity(r.tarball), Keep: keep, Otherwise: "to get it otherwise: make site-tools"}
}

// nothingCached fails unless the store holds no entry and no temporary
// directory: only lock files (and the folders of scopes).
func nothingCached(t *testing.T, c *Client) {
	t.Helper()
	_ = filepath.WalkDir(c.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == c.Dir {
			return nil
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), "@") {
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".lock") {
			return nil
		}
		t.Errorf("left in the store: %s", p)
		return nil
	})
}

var files = map[string]string{"package.json": `{"name":"x"}`, "bin/tool*": "#!/bin/sh\necho tool\n", "dist/a.js": "a"}

func TestFetchGood(t *testing.T) {
	r := newRegistry(t, "@scope/tool", tgz(t, files))
	c := r.client(t)
	dir, err := c.Fetch(context.Background(), r.pkg())
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(c.Dir, "@scope", "tool@1.0.0"); dir != want {
		t.Errorf("entry %s, want %s", dir, want)
	}
	fi, err := os.Stat(filepath.Join(dir, "bin", "tool"))
	if err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("bin/tool: %v, mode %v: want an executable", err, fi)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "dist", "a.js")); string(b) != "a" {
		t.Errorf("dist/a.js = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, StampName)); !strings.Contains(string(b), "integrity "+r.pkg().Integrity) {
		t.Errorf("stamp: %q", b)
	}
	if a, _ := r.accept.Load().(string); !strings.HasPrefix(a, "application/vnd.npm.install-v1+json") {
		t.Errorf("Accept %q: want npm's abbreviated metadata first", a)
	}
	// A complete entry is used as it is: no request.
	if _, err := (&Client{Registry: "http://127.0.0.1:1", Dir: c.Dir}).Fetch(context.Background(), r.pkg()); err != nil {
		t.Fatalf("cached entry: %v", err)
	}
	if m, g := r.metaGets.Load(), r.tarGets.Load(); m != 1 || g != 1 {
		t.Errorf("%d metadata and %d tarball requests, want 1 and 1", m, g)
	}
}

func TestFetchKeep(t *testing.T) {
	r := newRegistry(t, "mermaid", tgz(t, files))
	c := r.client(t)
	dir, err := c.Fetch(context.Background(), r.pkg("dist/a.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bin", "tool")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("bin/tool extracted without being kept: %v", err)
	}
	c2 := r.client(t)
	_, err = c2.Fetch(context.Background(), r.pkg("dist/missing.js"))
	if err == nil || !strings.Contains(err.Error(), "has no dist/missing.js") {
		t.Errorf("err = %v, want the missing file named", err)
	}
	nothingCached(t, c2)
}

// TestFetchKeepFolder: a kept path ending in "/" keeps every file below
// that folder (an icon package's svg/), and one that holds nothing is
// refused as a missing file is.
func TestFetchKeepFolder(t *testing.T) {
	icons := map[string]string{"package.json": "{}", "svg/check.svg": "<svg/>", "svg/sub/x.svg": "<svg/>", "fonts/a.woff": "font"}
	r := newRegistry(t, "@mdi/svg", tgz(t, icons))
	dir, err := r.client(t).Fetch(context.Background(), r.pkg("svg/"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"svg/check.svg", "svg/sub/x.svg"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			t.Errorf("%s not kept: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "fonts", "a.woff")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("fonts/a.woff extracted without being kept: %v", err)
	}
	c2 := r.client(t)
	if _, err := c2.Fetch(context.Background(), r.pkg("icons/")); err == nil || !strings.Contains(err.Error(), "has no icons/") {
		t.Errorf("err = %v, want the missing folder named", err)
	}
	nothingCached(t, c2)
}

func TestFetchRegistryIntegrityRefused(t *testing.T) {
	r := newRegistry(t, "@scope/tool", tgz(t, files))
	r.meta = integrity([]byte("something else"))
	c := r.client(t)
	_, err := c.Fetch(context.Background(), r.pkg())
	var ie *IntegrityError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "dist.integrity") {
		t.Fatalf("err = %v, want an IntegrityError of the metadata", err)
	}
	if r.tarGets.Load() != 0 {
		t.Errorf("the tarball was fetched although the metadata was refused")
	}
	nothingCached(t, c)
}

func TestFetchTarballIntegrityRefused(t *testing.T) {
	good := tgz(t, files)
	r := newRegistry(t, "@scope/tool", good)
	// The metadata says the pinned hash, the tarball is other bytes (a
	// mirror serving something else).
	r.meta = integrity(good)
	r.serve = func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(tgz(t, map[string]string{"package.json": "{}"}))
	}
	c := r.client(t)
	_, err := c.Fetch(context.Background(), r.pkg())
	var ie *IntegrityError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "the tarball from") {
		t.Fatalf("err = %v, want an IntegrityError of the tarball", err)
	}
	nothingCached(t, c)
}

func TestFetchTruncatedRefused(t *testing.T) {
	good := tgz(t, files)
	r := newRegistry(t, "@scope/tool", good)
	r.serve = func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(good)))
		_, _ = w.Write(good[:len(good)/2])
		// returning with fewer bytes than promised cuts the connection
	}
	c := r.client(t)
	_, err := c.Fetch(context.Background(), r.pkg())
	if err == nil || !strings.Contains(err.Error(), "cut after") {
		t.Fatalf("err = %v, want the cut download named", err)
	}
	nothingCached(t, c)

	// Without a Content-Length, a short body is a wrong hash.
	r.serve = func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(good[:len(good)/2]) }
	_, err = c.Fetch(context.Background(), r.pkg())
	var ie *IntegrityError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want an IntegrityError", err)
	}
	nothingCached(t, c)
}

func TestFetchNotFound(t *testing.T) {
	r := newRegistry(t, "@scope/tool", tgz(t, files))
	r.status = http.StatusNotFound
	c := r.client(t)
	_, err := c.Fetch(context.Background(), r.pkg())
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v (%T), want an *Error", err, err)
	}
	for _, want := range []string{"@scope/tool@1.0.0", r.srv.URL, "404 Not Found", "nothing cached", "make site-tools"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	nothingCached(t, c)

	// A registry without the pinned version.
	r.status = 0
	p := r.pkg()
	p.Version = "2.0.0"
	if _, err := c.Fetch(context.Background(), p); err == nil || !strings.Contains(err.Error(), "has no version 2.0.0") {
		t.Errorf("err = %v, want the missing version named", err)
	}
	nothingCached(t, c)
}

func TestFetchConcurrent(t *testing.T) {
	r := newRegistry(t, "@scope/tool", tgz(t, files))
	release := make(chan struct{})
	r.serve = func(w http.ResponseWriter, _ *http.Request) {
		<-release // every caller is waiting by now, or has not started
		_, _ = w.Write(r.tarball)
	}
	store := filepath.Join(t.TempDir(), "store")
	const n = 6
	var wg sync.WaitGroup
	dirs := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			// A client each, as separate kbook processes would have.
			dirs[i], errs[i] = (&Client{Registry: r.srv.URL, Dir: store}).Fetch(context.Background(), r.pkg())
		})
	}
	for i := 0; r.tarGets.Load() == 0 && i < 1000; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || dirs[i] != dirs[0] {
			t.Errorf("caller %d: %s, %v", i, dirs[i], errs[i])
		}
	}
	if g := r.tarGets.Load(); g != 1 {
		t.Errorf("%d tarball downloads for %d callers, want 1", g, n)
	}
}

func TestFetchInterrupted(t *testing.T) {
	good := tgz(t, files)
	r := newRegistry(t, "@scope/tool", good)
	ctx, cancel := context.WithCancel(context.Background())
	r.serve = func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(good)))
		_, _ = w.Write(good[:10])
		w.(http.Flusher).Flush()
		cancel() // Ctrl-C mid-body
		<-req.Context().Done()
	}
	c := r.client(t)
	_, err := c.Fetch(ctx, r.pkg())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	nothingCached(t, c)
	// A killed fetch's temporary directory is removed by the next one.
	leftover := filepath.Join(c.Dir, "@scope", ".tmp-tool@1.0.0-123")
	if err := os.MkdirAll(leftover, 0o755); err != nil {
		t.Fatal(err)
	}
	r.serve = nil
	if _, err := c.Fetch(context.Background(), r.pkg()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leftover); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a killed fetch's %s is still there: %v", leftover, err)
	}
}

func TestExtractRefusesEscape(t *testing.T) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	_ = tw.WriteHeader(&tar.Header{Name: "package/../../evil", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1})
	_, _ = tw.Write([]byte("x"))
	_ = tw.Close()
	_ = gz.Close()
	r := newRegistry(t, "evil", buf.Bytes())
	c := r.client(t)
	if _, err := c.Fetch(context.Background(), r.pkg()); err == nil || !strings.Contains(err.Error(), "outside the package") {
		t.Fatalf("err = %v, want the escaping path refused", err)
	}
	nothingCached(t, c)
}

func TestRegistryFromEnvironment(t *testing.T) {
	t.Setenv(EnvRegistry, "")
	t.Setenv(EnvRegistryUpper, "")
	if got := Registry(); got != DefaultRegistry {
		t.Errorf("Registry() = %s, want %s", got, DefaultRegistry)
	}
	t.Setenv(EnvRegistryUpper, "https://upper.example/npm")
	if got := Registry(); got != "https://upper.example/npm/" {
		t.Errorf("Registry() = %s with %s", got, EnvRegistryUpper)
	}
	t.Setenv(EnvRegistry, "https://lower.example/")
	if got := Registry(); got != "https://lower.example/" {
		t.Errorf("Registry() = %s: npm's lower-case variable wins", got)
	}
	// A test never reaches a registry beyond the loopback interface.
	c := &Client{Dir: t.TempDir()}
	_, err := c.Fetch(context.Background(), Mermaid)
	if err == nil || !strings.Contains(err.Error(), "loopback") || !strings.Contains(err.Error(), "https://lower.example/") {
		t.Errorf("err = %v, want the registry refused in a test", err)
	}
}

func TestPagefindBinary(t *testing.T) {
	p, ok := PagefindPackage(runtime.GOOS, runtime.GOARCH)
	if !ok {
		t.Skipf("kbook pins no Pagefind for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	r := newRegistry(t, p.Name, tgz(t, map[string]string{"package.json": "{}", "bin/pagefind_extended*": "bin"}))
	got, err := r.client(t).pagefind(context.Background(), r.pkg())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(got) != "pagefind_extended" {
		t.Errorf("Pagefind binary %s, want bin/pagefind_extended", got)
	}
	r2 := newRegistry(t, p.Name, tgz(t, map[string]string{"package.json": "{}"}))
	if _, err := r2.client(t).pagefind(context.Background(), r2.pkg()); err == nil || !strings.Contains(err.Error(), "holds no bin/pagefind") {
		t.Errorf("err = %v, want the missing binary named", err)
	}
}
