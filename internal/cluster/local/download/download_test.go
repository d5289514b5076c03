package download

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/k0rdent/kbook/internal/gobuild"
)

// The test machine's platform, as envtest archives name it.
const (
	testOS   = runtime.GOOS
	testArch = runtime.GOARCH
)

// recLogger records progress lines.
type recLogger = gobuild.Lines

// archiveOf is a gzipped tar of the files (base name -> content) under
// controller-tools/envtest/, as controller-tools packs them, with a
// directory entry and a symlink that extraction skips.
func archiveOf(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(tw.WriteHeader(&tar.Header{Name: "controller-tools/envtest/", Typeflag: tar.TypeDir, Mode: 0o755}))
	for name, data := range files {
		must(tw.WriteHeader(&tar.Header{Name: "controller-tools/envtest/" + name, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(data))}))
		_, err := tw.Write(data)
		must(err)
	}
	must(tw.WriteHeader(&tar.Header{Name: "controller-tools/envtest/link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}))
	must(tw.Close())
	must(gz.Close())
	return buf.Bytes()
}

func sum(b []byte) string {
	h := sha512.Sum512(b)
	return hex.EncodeToString(h[:])
}

// fakeFiles are small stand-ins for the binaries.
func fakeFiles() map[string][]byte {
	return map[string][]byte{
		"kube-apiserver": []byte("#!/bin/sh\necho kube-apiserver\n"),
		"etcd":           []byte("#!/bin/sh\necho etcd\n"),
		"kubectl":        []byte("#!/bin/sh\necho kubectl\n"),
	}
}

// indexServer serves an index listing one archive of version for this
// platform, and the archive. hash overrides the archive's real sha512 in
// the index when set; body, when set, serves the archive instead of
// writing it whole (a connection cut mid-body, say).
type indexServer struct {
	*httptest.Server
	archive  []byte
	hash     string
	version  string
	body     func(w http.ResponseWriter, r *http.Request, archive []byte)
	archives atomic.Int32 // archive requests served
}

func newIndexServer(t testing.TB, version string, archive []byte) *indexServer {
	s := &indexServer{archive: archive, hash: sum(archive), version: version}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := "envtest-v" + s.version + "-" + testOS + "-" + testArch + ".tar.gz"
		switch r.URL.Path {
		case "/envtest-releases.yaml":
			fmt.Fprintf(w, "releases:\n  v%s:\n    %s:\n      hash: %s\n      selfLink: %s/%s\n",
				s.version, name, s.hash, s.URL, name)
		case "/" + name:
			s.archives.Add(1)
			if s.body != nil {
				s.body(w, r, s.archive)
				return
			}
			w.Header().Set("Content-Length", fmt.Sprint(len(s.archive)))
			_, _ = w.Write(s.archive)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *indexServer) indexURL() string { return s.URL + "/envtest-releases.yaml" }

// fetch picks version from the server's index and fetches it into root.
func fetch(t testing.TB, s *indexServer, root, version string) (string, error) {
	t.Helper()
	c := &Client{IndexURL: s.indexURL()}
	ix, err := c.Index(context.Background())
	if err != nil {
		return "", err
	}
	it, _, err := ix.Pick(version, testOS, testArch)
	if err != nil {
		return "", err
	}
	return c.Fetch(context.Background(), Store{Root: root}, it)
}

// assertEmptyStore checks that the store holds nothing but lock files.
func assertEmptyStore(t *testing.T, root string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(root, "k8s"))
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("store keeps %s after a failed fetch", e.Name())
		}
	}
}

func TestPick(t *testing.T) {
	data, err := os.ReadFile("testdata/index.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(data) }))
	defer srv.Close()
	ix, err := (&Client{IndexURL: srv.URL}).Index(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want, os, arch string
		version              string // picked
		exact                bool
		err                  string
	}{
		{name: "exact", want: "v1.34.1", os: "linux", arch: "amd64", version: "1.34.1", exact: true},
		{name: "without v", want: "1.33.0", os: "linux", arch: "amd64", version: "1.33.0", exact: true},
		{name: "newest patch of the minor", want: "v1.34.12", os: "linux", arch: "amd64", version: "1.34.3"},
		{name: "only patch for the platform", want: "v1.34.12", os: "darwin", arch: "arm64", version: "1.34.1"},
		{name: "pre-releases are not releases", want: "v1.35.0", os: "linux", arch: "amd64", err: "has no archive of Kubernetes 1.35 for linux/amd64 (it lists no 1.35 release)"},
		{name: "other platforms only", want: "v1.33.5", os: "darwin", arch: "amd64", err: "its 1.33 archives are for linux/amd64"},
		{name: "bad hash", want: "v1.34.3", os: "linux", arch: "arm64", err: `hash "not-a-sha512" is not a hex sha512`},
		{name: "bad link", want: "v1.34.3", os: "windows", arch: "amd64", err: "is not an http(s) URL"},
		{name: "not a version", want: "latest", os: "linux", arch: "amd64", err: `"latest" is not a Kubernetes version`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it, exact, err := ix.Pick(tc.want, tc.os, tc.arch)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if it.Version != tc.version || exact != tc.exact {
				t.Fatalf("picked %s (exact %v), want %s (exact %v)", it.Version, exact, tc.version, tc.exact)
			}
			if want := "envtest-v" + tc.version + "-" + tc.os + "-" + tc.arch + ".tar.gz"; it.Name != want || !strings.HasSuffix(it.Archive.SelfLink, "/"+want) {
				t.Fatalf("picked %s at %s, want %s", it.Name, it.Archive.SelfLink, want)
			}
			if it.DirName() != tc.version+"-"+tc.os+"-"+tc.arch {
				t.Fatalf("DirName %s", it.DirName())
			}
		})
	}
}

func TestIndexErrors(t *testing.T) {
	files := map[string]string{}
	for _, f := range []string{"bad-field.yaml", "not-yaml.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		files["/"+f] = string(data)
	}
	files["/empty.yaml"] = "releases: {}\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, data)
	}))
	defer srv.Close()
	refused := closedURL(t)
	for _, tc := range []struct{ url, err string }{
		{srv.URL + "/bad-field.yaml", `unknown field "sha"`},
		{srv.URL + "/not-yaml.yaml", "yaml"},
		{srv.URL + "/empty.yaml", "no releases"},
		{srv.URL + "/missing.yaml", "404 Not Found"},
		{refused, "connection refused"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := (&Client{IndexURL: tc.url}).Index(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "envtest index") {
				t.Fatalf("err = %v, want one naming the envtest index and %q", err, tc.err)
			}
		})
	}
}

// closedURL is the URL of a port nothing listens on any more: an offline
// mirror, connection refused.
func closedURL(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/envtest-releases.yaml"
}

func TestFetch(t *testing.T) {
	files := fakeFiles()
	s := newIndexServer(t, "1.34.12", archiveOf(t, files))
	root := t.TempDir()
	var log recLogger
	c := &Client{IndexURL: s.indexURL(), Log: &log}
	ix, err := c.Index(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	it, exact, err := ix.Pick("v1.34.12", testOS, testArch)
	if err != nil || !exact {
		t.Fatalf("pick: %v (exact %v)", err, exact)
	}
	dir, err := c.Fetch(context.Background(), Store{Root: root}, it)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Store{Root: root}).Path("v1.34.12", testOS, testArch); dir != want {
		t.Fatalf("dir %s, want %s", dir, want)
	}
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: %q, %v", name, got, err)
		}
	}
	if !Complete(dir, "kube-apiserver", "etcd", "kubectl") {
		t.Fatal("entry not complete")
	}
	if _, err := os.Lstat(filepath.Join(dir, "link")); !os.IsNotExist(err) {
		t.Fatalf("the archive's symlink was extracted: %v", err)
	}
	stamp, _ := os.ReadFile(filepath.Join(dir, StampName))
	if !strings.Contains(string(stamp), "sha512 "+s.hash) || !strings.Contains(string(stamp), "url "+s.URL) {
		t.Fatalf("stamp does not record the archive:\n%s", stamp)
	}
	if !strings.Contains(log.String(), "sha512 verified") {
		t.Fatalf("log does not say it verified:\n%s", log.String())
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary %s left", e.Name())
		}
	}
	// A second fetch uses the entry.
	if _, err := c.Fetch(context.Background(), Store{Root: root}, it); err != nil {
		t.Fatal(err)
	}
	if n := s.archives.Load(); n != 1 {
		t.Fatalf("%d archive downloads, want 1", n)
	}
	if got := (Store{Root: root}).Newest("v1.34.0", testOS, testArch, Required...); got != dir {
		t.Fatalf("Newest = %q, want %s", got, dir)
	}
	if got := (Store{Root: root}).Newest("v1.33.0", testOS, testArch, Required...); got != "" {
		t.Fatalf("Newest of 1.33 = %q, want none", got)
	}
}

func TestFetchChecksumMismatch(t *testing.T) {
	s := newIndexServer(t, "1.34.12", archiveOf(t, fakeFiles()))
	s.hash = strings.Repeat("ab", 64)
	root := t.TempDir()
	_, err := fetch(t, s, root, "v1.34.12")
	var ce *ChecksumError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a checksum error", err)
	}
	for _, want := range []string{"envtest-v1.34.12-", sum(s.archive), "the index says " + s.hash, "refused, nothing cached"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	assertEmptyStore(t, root)
}

func TestFetchArchiveProblems(t *testing.T) {
	noEtcd := fakeFiles()
	delete(noEtcd, "etcd")
	for _, tc := range []struct {
		name    string
		archive []byte
		err     string
	}{
		{"not gzip", []byte("<html>rate limited</html>"), "not gzip"},
		{"no etcd", archiveOf(t, noEtcd), "etcd missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newIndexServer(t, "1.34.12", tc.archive)
			root := t.TempDir()
			_, err := fetch(t, s, root, "v1.34.12")
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			assertEmptyStore(t, root)
		})
	}
}

// TestFetchPartial cuts the connection half-way through the archive; the
// next fetch, from a server that sends it whole, downloads it again and
// trusts nothing the first left.
func TestFetchPartial(t *testing.T) {
	s := newIndexServer(t, "1.34.12", archiveOf(t, fakeFiles()))
	s.body = func(w http.ResponseWriter, _ *http.Request, archive []byte) {
		w.Header().Set("Content-Length", fmt.Sprint(len(archive)))
		_, _ = w.Write(archive[:len(archive)/2])
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
	root := t.TempDir()
	_, err := fetch(t, s, root, "v1.34.12")
	if err == nil || !strings.Contains(err.Error(), "download cut after") || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want a cut download", err)
	}
	assertEmptyStore(t, root)

	s.body = nil
	if _, err := fetch(t, s, root, "v1.34.12"); err != nil {
		t.Fatal(err)
	}
	if n := s.archives.Load(); n != 2 {
		t.Fatalf("%d archive requests, want 2", n)
	}
}

// TestFetchAfterKill is what a kill -9 mid-fetch leaves: a temporary
// directory, and (from an older kbook, or a hand) an entry without its
// stamp. Neither is trusted; the fetch replaces both.
func TestFetchAfterKill(t *testing.T) {
	s := newIndexServer(t, "1.34.12", archiveOf(t, fakeFiles()))
	root := t.TempDir()
	st := Store{Root: root}
	entry := st.Path("1.34.12", testOS, testArch)
	tmp := filepath.Join(filepath.Dir(entry), ".tmp-"+filepath.Base(entry)+"-123")
	for _, d := range []string{entry, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range Required {
			if err := os.WriteFile(filepath.Join(d, n), []byte("#!/bin/sh\necho half\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if Complete(entry, Required...) || st.Newest("1.34.0", testOS, testArch, Required...) != "" {
		t.Fatal("an entry without its stamp is trusted")
	}
	dir, err := fetch(t, s, root, "v1.34.12")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "etcd")); !bytes.Equal(got, fakeFiles()["etcd"]) {
		t.Fatalf("etcd is %q: the unstamped entry was kept", got)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("the killed fetch's temporary directory is still there: %v", err)
	}
}

// TestFetchRealBinaries serves an archive of the kube-apiserver and etcd
// kbook built (KUBEBUILDER_ASSETS) and runs what the fetch extracted.
func TestFetchRealBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("packs ~130 MB of binaries")
	}
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		t.Skip("KUBEBUILDER_ASSETS not set: no real binaries to serve")
	}
	files := map[string][]byte{}
	for _, n := range Required {
		data, err := os.ReadFile(filepath.Join(assets, n))
		if err != nil {
			t.Skipf("no real %s: %v", n, err)
		}
		files[n] = data
	}
	var archive bytes.Buffer
	if err := WriteArchive(&archive, files); err != nil {
		t.Fatal(err)
	}
	s := newIndexServer(t, "1.34.12", archive.Bytes())
	dir, err := fetch(t, s, t.TempDir(), "v1.34.12")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(dir, "kube-apiserver"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "Kubernetes v1.34.") {
		t.Fatalf("kube-apiserver --version: %s %v", out, err)
	}
	out, err = exec.Command(filepath.Join(dir, "etcd"), "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "etcd Version:") {
		t.Fatalf("etcd --version: %s %v", out, err)
	}
}

func TestFetchCancelled(t *testing.T) {
	s := newIndexServer(t, "1.34.12", archiveOf(t, fakeFiles()))
	started := make(chan struct{})
	s.body = func(w http.ResponseWriter, r *http.Request, archive []byte) {
		w.Header().Set("Content-Length", fmt.Sprint(len(archive)))
		_, _ = w.Write(archive[:10])
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{IndexURL: s.indexURL()}
	ix, err := c.Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	it, _, err := ix.Pick("1.34.12", testOS, testArch)
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-started; cancel() }()
	root := t.TempDir()
	_, err = c.Fetch(ctx, Store{Root: root}, it)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	assertEmptyStore(t, root)
}
