package binaries

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

	"github.com/k0rdent/kbook/internal/cluster/local/download"
)

// envtestIndex is an in-process setup-envtest index offering one archive
// of fake binaries for this platform.
type envtestIndex struct {
	*httptest.Server
	requests atomic.Int32
	hash     string // what the index says the archive's sha512 is
	cut      bool   // close the connection half-way through the archive
}

// newEnvtestIndex serves version (major.minor.patch) with the named fake
// binaries in its archive.
func newEnvtestIndex(t *testing.T, version string, files ...string) *envtestIndex {
	t.Helper()
	contents := map[string][]byte{}
	for _, n := range files {
		contents[n] = []byte("#!/bin/sh\necho downloaded " + n + "\n")
	}
	var buf bytes.Buffer
	if err := download.WriteArchive(&buf, contents); err != nil {
		t.Fatal(err)
	}
	archive := buf.Bytes()
	sum := sha512.Sum512(archive)
	ix := &envtestIndex{hash: hex.EncodeToString(sum[:])}
	name := fmt.Sprintf("envtest-v%s-%s-%s.tar.gz", version, runtime.GOOS, runtime.GOARCH)
	ix.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ix.requests.Add(1)
		switch r.URL.Path {
		case "/index.yaml":
			fmt.Fprintf(w, "releases:\n  v%s:\n    %s:\n      hash: %s\n      selfLink: %s/%s\n", version, name, ix.hash, ix.URL, name)
		case "/" + name:
			w.Header().Set("Content-Length", fmt.Sprint(len(archive)))
			if !ix.cut {
				_, _ = w.Write(archive)
				return
			}
			_, _ = w.Write(archive[:len(archive)/2])
			w.(http.Flusher).Flush()
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ix.Close)
	return ix
}

func (ix *envtestIndex) url() string { return ix.URL + "/index.yaml" }

// offlineIndex is the URL of a port nothing listens on: connection refused.
func offlineIndex(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/index.yaml"
}

// storeEntries lists the download store's entries (lock files aside).
func storeEntries(t *testing.T, root string) []string {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(root, "envtest", "k8s"))
	var out []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".lock") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestDirSources covers where each source takes the binaries from, and
// what it says, against an in-process index.
func TestDirSources(t *testing.T) {
	entry := KubernetesVersion[1:] + "-" + runtime.GOOS + "-" + runtime.GOARCH
	for _, tc := range []struct {
		name       string
		source     assetsfrom.Source
		version    string // the index's; "" offline
		hash       string // the index's sha512 when not the archive's
		cut        bool   // connection cut mid-archive
		builtCache bool   // a complete build cache already there
		wantBuilt  []string
		wantEntry  string // the download store's entry afterwards
		wantLog    []string
		wantErr    []string
	}{
		{name: "download", source: assetsfrom.Download, version: KubernetesVersion[1:], wantEntry: entry,
			wantLog: []string{"downloading envtest-" + KubernetesVersion, "sha512 verified"}},
		{name: "download, newest patch of the minor", source: assetsfrom.Download, version: "1.34.3", wantEntry: "1.34.3-" + runtime.GOOS + "-" + runtime.GOARCH,
			wantLog: []string{"taking v1.34.3, the newest patch of its minor"}},
		{name: "auto downloads", source: assetsfrom.Auto, version: KubernetesVersion[1:], wantEntry: entry, wantLog: []string{"sha512 verified"}},
		{name: "auto takes the build cache", source: assetsfrom.Auto, version: KubernetesVersion[1:], builtCache: true},
		{name: "download ignores the build cache", source: assetsfrom.Download, version: KubernetesVersion[1:], builtCache: true, wantEntry: entry},
		{name: "build never downloads", source: assetsfrom.Build, version: KubernetesVersion[1:], wantBuilt: core2()},
		{name: "auto offline builds", source: assetsfrom.Auto, wantBuilt: core2(),
			wantLog: []string{"could not download the local API server binaries", "connection refused", "building them from pinned Go modules instead"}},
		{name: "download offline fails", source: assetsfrom.Download,
			wantErr: []string{"envtest index", "connection refused", "--assets-from build"}},
		{name: "auto, checksum mismatch, builds", source: assetsfrom.Auto, version: KubernetesVersion[1:], hash: strings.Repeat("ab", 64), wantBuilt: core2(),
			wantLog: []string{"the index says " + strings.Repeat("ab", 64) + ": refused, nothing cached", "building them from pinned Go modules instead"}},
		{name: "download, checksum mismatch, fails", source: assetsfrom.Download, version: KubernetesVersion[1:], hash: strings.Repeat("ab", 64),
			wantErr: []string{"the index says " + strings.Repeat("ab", 64) + ": refused, nothing cached"}},
		{name: "download cut mid-way fails", source: assetsfrom.Download, version: KubernetesVersion[1:], cut: true,
			wantErr: []string{"download cut after", "unexpected EOF"}},
		{name: "auto, cut mid-way, builds", source: assetsfrom.Auto, version: KubernetesVersion[1:], cut: true, wantBuilt: core2(),
			wantLog: []string{"download cut after", "building them from pinned Go modules instead"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goLog := fakeEnv(t, true, true)
			root := t.TempDir()
			url := offlineIndex(t)
			var ix *envtestIndex
			if tc.version != "" {
				ix = newEnvtestIndex(t, tc.version, KubeAPIServer, Etcd, Kubectl)
				if tc.hash != "" {
					ix.hash = tc.hash
				}
				ix.cut = tc.cut
				url = ix.url()
			}
			log := &recLogger{}
			opts := []Option{WithCacheDir(root), WithLogger(log), WithSource(tc.source), WithIndexURL(url)}
			buildDir, _ := CacheDir(opts...)
			if tc.builtCache {
				populate(t, buildDir, true, core2()...)
			}
			got, err := Dir(context.Background(), opts...)
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("Dir() = %s, want an error", got)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
			} else if err != nil {
				t.Fatalf("Dir: %v\nlog:\n%s", err, log)
			}
			for _, w := range tc.wantLog {
				if !strings.Contains(log.String(), w) {
					t.Errorf("log lacks %q:\n%s", w, log)
				}
			}
			if b := built(t, goLog); !slices.Equal(b, tc.wantBuilt) {
				t.Errorf("built %v, want %v", b, tc.wantBuilt)
			}
			var wantEntries []string
			if tc.wantEntry != "" {
				wantEntries = []string{tc.wantEntry}
			}
			if e := storeEntries(t, root); !slices.Equal(e, wantEntries) {
				t.Errorf("download store holds %v, want %v", e, wantEntries)
			}
			switch {
			case err != nil:
			case tc.wantEntry != "":
				if want := filepath.Join(root, "envtest", "k8s", tc.wantEntry); got != want {
					t.Errorf("Dir() = %s, want the store entry %s", got, want)
				}
				data, _ := os.ReadFile(filepath.Join(got, KubeAPIServer))
				if !strings.Contains(string(data), "downloaded") {
					t.Errorf("kube-apiserver is not the downloaded one: %q", data)
				}
				if d := Downloaded(got); !strings.HasPrefix(d, "envtest-v") || !strings.Contains(d, " sha512 ") {
					t.Errorf("Downloaded(%s) = %q", got, d)
				}
			default:
				if got != buildDir {
					t.Errorf("Dir() = %s, want the build cache %s", got, buildDir)
				}
				if d := Downloaded(got); d != "" {
					t.Errorf("Downloaded(build cache) = %q", d)
				}
			}
			if ix != nil && (tc.builtCache && tc.source == assetsfrom.Auto || tc.source == assetsfrom.Build) && ix.requests.Load() != 0 {
				t.Errorf("%s asked the index (%d requests)", tc.source, ix.requests.Load())
			}
		})
	}
}

// TestDirDownloadedOffline: once downloaded, an offline machine uses the
// entry, under download and auto alike; Available finds it too.
func TestDirDownloadedOffline(t *testing.T) {
	goLog := fakeEnv(t, true, true)
	root := t.TempDir()
	ix := newEnvtestIndex(t, "1.34.3", KubeAPIServer, Etcd, Kubectl)
	first, err := Dir(context.Background(), WithCacheDir(root), WithSource(assetsfrom.Download), WithIndexURL(ix.url()))
	if err != nil {
		t.Fatal(err)
	}
	off := offlineIndex(t)
	for _, s := range []assetsfrom.Source{assetsfrom.Download, assetsfrom.Auto} {
		log := &recLogger{}
		got, err := Dir(context.Background(), WithCacheDir(root), WithSource(s), WithIndexURL(off), WithLogger(log))
		if err != nil || got != first {
			t.Fatalf("%s offline: Dir() = %s, %v; want %s", s, got, err, first)
		}
		if s == assetsfrom.Download && !strings.Contains(log.String(), "downloaded before") {
			t.Errorf("download offline does not say it uses the earlier download:\n%s", log)
		}
	}
	if got, why := Available(WithCacheDir(root)); got != first {
		t.Errorf("Available() = %q (%s), want %s", got, why, first)
	}
	if b := built(t, goLog); len(b) > 0 {
		t.Errorf("built %v", b)
	}
}

func TestDirUnknownSource(t *testing.T) {
	fakeEnv(t, true, true)
	_, err := Dir(context.Background(), WithCacheDir(t.TempDir()), WithSource(assetsfrom.Source(9)))
	if err == nil || !strings.Contains(err.Error(), "unknown source") || !strings.Contains(err.Error(), "auto, download or build") {
		t.Fatalf("err = %v", err)
	}
}
