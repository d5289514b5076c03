package images

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// layer is a layer holding the files (path -> content); a "" content is a
// whiteout of that path.
func layer(t *testing.T, files map[string]string) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for p, c := range files {
		hdr := &tar.Header{Name: p, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(c))}
		if c == "" {
			hdr.Name = filepath.Join(filepath.Dir(p), ".wh."+filepath.Base(p))
			hdr.Mode = 0o644
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// image is a controller image as the releases ship them: a base layer, the
// manager in a layer above, its entrypoint naming it.
func image(t *testing.T, goos, goarch string, entrypoint []string, layers ...v1.Layer) v1.Image {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, layers...)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = goos, goarch
	cf.Config.Entrypoint = entrypoint
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// newRegistry serves go-containerregistry's registry in process.
func newRegistry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return u.Host
}

func push(t *testing.T, host, repoTag string, img v1.Image) v1.Hash {
	t.Helper()
	ref, err := name.ParseReference(host+"/"+repoTag, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img); err != nil {
		t.Fatal(err)
	}
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// managerBinary is a real controller kbook built, when there is one, else
// a script: what the image carries as its manager.
func managerBinary(t *testing.T) []byte {
	t.Helper()
	home, _ := os.UserHomeDir()
	for _, p := range []string{
		filepath.Join(home, ".cache/kbook/k0rdent/v1.11.4-"+runtime.GOOS+"-"+runtime.GOARCH+"/bin/capi-kubeadm-bootstrap-controller-manager"),
	} {
		if data, err := os.ReadFile(p); err == nil && !testing.Short() {
			return data
		}
	}
	return []byte("#!/bin/sh\necho manager\n")
}

func TestPull(t *testing.T) {
	manager := managerBinary(t)
	host := newRegistry(t)
	img := image(t, runtime.GOOS, runtime.GOARCH, []string{"/manager"},
		layer(t, map[string]string{"manager": "old manager", "etc/passwd": "root:x:0:0"}),
		layer(t, map[string]string{"manager": string(manager), "etc/passwd": ""}))
	digest := push(t, host, "k0rdent/kcm/controller:1.11.4", img)

	target := filepath.Join(t.TempDir(), "kcm")
	rec, err := Pull(context.Background(), "ghcr.io/k0rdent/kcm/controller:1.11.4", target, Options{Mirror: host, Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(target)
	if err != nil || !bytes.Equal(got, manager) {
		t.Fatalf("target holds %d bytes (%v), want the top layer's manager (%d bytes)", len(got), err, len(manager))
	}
	sum := sha256.Sum256(manager)
	want := Record{Ref: host + "/k0rdent/kcm/controller:1.11.4", Digest: digest.String(), ImageDigest: digest.String(), Path: "/manager", SHA256: hex.EncodeToString(sum[:])}
	if rec != want {
		t.Fatalf("record %+v, want %+v", rec, want)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("target not executable: %v", fi.Mode())
	}
}

// TestPullIndex: a multi-platform image gives this platform's.
func TestPullIndex(t *testing.T) {
	host := newRegistry(t)
	mine := image(t, runtime.GOOS, runtime.GOARCH, []string{"/manager"}, layer(t, map[string]string{"manager": "mine"}))
	other := image(t, "linux", "s390x", []string{"/manager"}, layer(t, map[string]string{"manager": "other"}))
	if runtime.GOARCH == "s390x" {
		other = image(t, "linux", "arm64", []string{"/manager"}, layer(t, map[string]string{"manager": "other"}))
	}
	idx := mutate.AppendManifests(empty.Index,
		mutate.IndexAddendum{Add: other, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "s390x"}}},
		mutate.IndexAddendum{Add: mine, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: runtime.GOOS, Architecture: runtime.GOARCH}}})
	ref, _ := name.ParseReference(host+"/fluxcd/source-controller:v1.9.3", name.Insecure)
	if err := remote.WriteIndex(ref, idx); err != nil {
		t.Fatal(err)
	}
	idxDigest, _ := idx.Digest()
	mineDigest, _ := mine.Digest()
	target := filepath.Join(t.TempDir(), "source-controller")
	rec, err := Pull(context.Background(), "ghcr.io/fluxcd/source-controller:v1.9.3", target, Options{Mirror: host, Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "mine" {
		t.Fatalf("took %q, want this platform's manager", got)
	}
	if rec.Digest != idxDigest.String() || rec.ImageDigest != mineDigest.String() {
		t.Fatalf("record %+v: want digest %s, image digest %s", rec, idxDigest, mineDigest)
	}
}

func TestPullRefused(t *testing.T) {
	good := func(t *testing.T) v1.Image {
		return image(t, runtime.GOOS, runtime.GOARCH, []string{"/manager"}, layer(t, map[string]string{"manager": "the manager, in a layer long enough to corrupt"}))
	}
	for _, tc := range []struct {
		name   string
		img    func(t *testing.T) v1.Image
		tamper func(w http.ResponseWriter, r *http.Request) bool
		err    string
	}{
		{name: "layer does not match its digest", img: good, err: "sha256",
			tamper: func(w http.ResponseWriter, r *http.Request) bool {
				if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "/blobs/") {
					return false
				}
				rec := httptest.NewRecorder()
				regOf(r).ServeHTTP(rec, r)
				body := rec.Body.Bytes()
				if len(body) > 0 && body[0] == 0x1f { // a gzipped layer, not the config
					body = append([]byte{}, body...)
					body[len(body)/2] ^= 0xff
				}
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				_, _ = w.Write(body)
				return true
			}},
		{name: "manifest does not match the registry's digest", img: good, err: "does not match requested digest",
			tamper: func(w http.ResponseWriter, r *http.Request) bool {
				if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "/manifests/sha256:") {
					return false
				}
				rec := httptest.NewRecorder()
				regOf(r).ServeHTTP(rec, r)
				body := append(rec.Body.Bytes(), '\n')
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.Header().Set("Content-Length", fmt.Sprint(len(body)))
				w.WriteHeader(rec.Code)
				_, _ = w.Write(body)
				return true
			}},
		{name: "no entrypoint", err: "names no absolute path",
			img: func(t *testing.T) v1.Image {
				return image(t, runtime.GOOS, runtime.GOARCH, nil, layer(t, map[string]string{"manager": "x"}))
			}},
		{name: "entrypoint not in the image", err: "/manager: not in the image",
			img: func(t *testing.T) v1.Image {
				return image(t, runtime.GOOS, runtime.GOARCH, []string{"/manager"}, layer(t, map[string]string{"bin/other": "x"}))
			}},
		{name: "entrypoint whited out", err: "/manager: not in the image",
			img: func(t *testing.T) v1.Image {
				return image(t, runtime.GOOS, runtime.GOARCH, []string{"/manager"}, layer(t, map[string]string{"manager": "x"}), layer(t, map[string]string{"manager": ""}))
			}},
		{name: "other platform", err: "is for plan9/mips",
			img: func(t *testing.T) v1.Image {
				return image(t, "plan9", "mips", []string{"/manager"}, layer(t, map[string]string{"manager": "x"}))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var host string
			if tc.tamper != nil {
				reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					r = r.WithContext(context.WithValue(r.Context(), regKey{}, reg))
					// Pushes go through untouched.
					if r.Method == http.MethodGet && tc.tamper(w, r) {
						return
					}
					reg.ServeHTTP(w, r)
				}))
				t.Cleanup(srv.Close)
				u, _ := url.Parse(srv.URL)
				host = u.Host
			} else {
				host = newRegistry(t)
			}
			push(t, host, "cluster-api/capd-manager:v1.13.4", tc.img(t))
			dir := t.TempDir()
			target := filepath.Join(dir, "capd-controller-manager")
			_, err := Pull(context.Background(), "registry.k8s.io/cluster-api/capd-manager:v1.13.4", target, Options{Mirror: host, Insecure: true})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Fatalf("a refused pull left %v", entries)
			}
		})
	}
}

type regKey struct{}

func regOf(r *http.Request) http.Handler { return r.Context().Value(regKey{}).(http.Handler) }

func TestPullOffline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	_, err = Pull(context.Background(), "ghcr.io/k0rdent/kcm/controller:1.11.4", filepath.Join(dir, "kcm"), Options{Mirror: host, Insecure: true})
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), host+"/k0rdent/kcm/controller:1.11.4") {
		t.Fatalf("err = %v, want connection refused naming the image", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Fatalf("an offline pull left %v", entries)
	}
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct{ ref, mirror, want string }{
		{"ghcr.io/k0rdent/kcm/controller:1.11.4", "", "ghcr.io/k0rdent/kcm/controller:1.11.4"},
		{"ghcr.io/k0rdent/kcm/controller:1.11.4", "mirror.example:5000", "mirror.example:5000/k0rdent/kcm/controller:1.11.4"},
		{"registry.k8s.io/cluster-api/cluster-api-controller@sha256:" + strings.Repeat("a", 64), "m.example", "m.example/cluster-api/cluster-api-controller@sha256:" + strings.Repeat("a", 64)},
	} {
		r, err := Resolve(tc.ref, Options{Mirror: tc.mirror})
		if err != nil || r.String() != tc.want {
			t.Errorf("Resolve(%s, %s) = %v, %v; want %s", tc.ref, tc.mirror, r, err, tc.want)
		}
	}
	if _, err := Resolve("UPPER/case:x", Options{}); err == nil || !strings.Contains(err.Error(), "image UPPER/case:x") {
		t.Errorf("bad reference: %v", err)
	}
}
