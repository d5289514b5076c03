package controllers

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/k0rdent/kbook/internal/cluster/plane/images"
	"github.com/k0rdent/kbook/internal/gobuild"
)

// withCharts copies the provider-chart fixtures into the fake kcm module.
func withCharts(t *testing.T, modCache string) {
	t.Helper()
	if err := copyTree("testdata/provider-charts", filepath.Join(modCache, "kcm", "templates", "provider")); err != nil {
		t.Fatal(err)
	}
}

func TestControllerImages(t *testing.T) {
	r, _ := K0rdent("v1.11.4")
	modules := t.TempDir()
	if err := copyTree("testdata/provider-charts", filepath.Join(modules, "kcm", "templates", "provider")); err != nil {
		t.Fatal(err)
	}
	got, err := ControllerImages(r, K0rdentPaths{Modules: modules})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		KCM:                 "ghcr.io/k0rdent/kcm/controller:1.11.4",
		SourceController:    "ghcr.io/fluxcd/source-controller:v1.9.3",
		HelmController:      "ghcr.io/fluxcd/helm-controller:v1.6.2",
		CAPICore:            "registry.k8s.io/cluster-api/cluster-api-controller:v1.13.4",
		KubeadmBootstrap:    "registry.k8s.io/cluster-api/kubeadm-bootstrap-controller:v1.13.4",
		KubeadmControlPlane: "registry.k8s.io/cluster-api/kubeadm-control-plane-controller:v1.13.4",
		CAPD:                "registry.k8s.io/cluster-api/capd-manager:v1.13.4",
	}
	for _, c := range r.Controllers {
		if got[c.Name] != want[c.Name] {
			t.Errorf("%s: %q, want %q", c.Name, got[c.Name], want[c.Name])
		}
	}
	// A chart that names no image is an error naming the file.
	if err := os.WriteFile(filepath.Join(modules, "kcm/templates/provider/cluster-api/templates/_helpers.tpl"), []byte("{{/* none */}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ControllerImages(r, K0rdentPaths{Modules: modules}); err == nil || !strings.Contains(err.Error(), "cluster-api/templates/_helpers.tpl names no image") {
		t.Errorf("err = %v", err)
	}
}

// registryWith serves go-containerregistry's registry in process with an
// image per controller (all but skip), its entrypoint a script saying
// which, and returns the host and each image's digest.
func registryWith(t *testing.T, refs map[string]string, skip string) (string, map[string]string) {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	digests := map[string]string{}
	for ctl, ref := range refs {
		if ctl == skip {
			continue
		}
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		body := "#!/bin/sh\necho pulled " + ctl + "\n"
		_ = tw.WriteHeader(&tar.Header{Name: "manager", Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(body))})
		_, _ = io.WriteString(tw, body)
		_ = tw.Close()
		data := buf.Bytes()
		l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
		if err != nil {
			t.Fatal(err)
		}
		img, _ := mutate.AppendLayers(empty.Image, l)
		cf, _ := img.ConfigFile()
		cf = cf.DeepCopy()
		cf.OS, cf.Architecture, cf.Config.Entrypoint = runtime.GOOS, runtime.GOARCH, []string{"/manager"}
		img, _ = mutate.ConfigFile(img, cf)
		r, err := images.Resolve(ref, images.Options{Mirror: u.Host})
		if err != nil {
			t.Fatal(err)
		}
		if err := remote.Write(r, img); err != nil {
			t.Fatal(err)
		}
		d, _ := img.Digest()
		digests[ctl] = d.String()
	}
	return u.Host, digests
}

// TestK0rdentPull takes the controllers from images in an in-process
// registry, under download and auto, and falls back to the builds under
// auto only.
func TestK0rdentPull(t *testing.T) {
	refsFor := func(t *testing.T, r *K0rdentRelease, modCache string) map[string]string {
		modules := t.TempDir()
		if err := copyTree(filepath.Join(modCache, "kcm"), filepath.Join(modules, "kcm")); err != nil {
			t.Fatal(err)
		}
		refs, err := ControllerImages(r, K0rdentPaths{Modules: modules})
		if err != nil {
			t.Fatal(err)
		}
		return refs
	}
	for _, tc := range []struct {
		name      string
		source    assetsfrom.Source
		skip      string // the controller the registry lacks
		offline   bool
		wantBuilt []string // controllers built, not pulled
		wantLog   string
		wantErr   string
	}{
		{name: "download", source: assetsfrom.Download, wantLog: "pulled kcm from "},
		{name: "auto", source: assetsfrom.Auto, wantLog: "pulled capd-controller-manager from "},
		{name: "auto, an image missing", source: assetsfrom.Auto, skip: HelmController,
			wantBuilt: []string{HelmController, CAPICore, KubeadmBootstrap, KubeadmControlPlane, CAPD},
			wantLog:   "could not pull helm-controller"},
		{name: "download, an image missing", source: assetsfrom.Download, skip: HelmController, wantErr: "pull helm-controller"},
		{name: "auto offline", source: assetsfrom.Auto, offline: true,
			wantBuilt: []string{KCM, SourceController, HelmController, CAPICore, KubeadmBootstrap, KubeadmControlPlane, CAPD},
			wantLog:   "connection refused"},
		{name: "download offline", source: assetsfrom.Download, offline: true, wantErr: "--assets-from build builds it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, goLog, modCache := fakeK0rdent(t)
			withCharts(t, modCache)
			refs := refsFor(t, r, modCache)
			host, digests := registryWith(t, refs, tc.skip)
			if tc.offline {
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				host = l.Addr().String()
				l.Close()
			}
			cacheRoot := t.TempDir()
			lg := &gobuild.Lines{}
			p, err := K0rdentDir(context.Background(), r, K0rdentCacheDir(cacheRoot), K0rdentLogger(lg),
				K0rdentAssetsFrom(tc.source), K0rdentImageOptions(images.Options{Mirror: host}))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if _, why := K0rdentAvailable(r, false, K0rdentCacheDir(cacheRoot)); why == "" {
					t.Error("stamped after a failed download")
				}
				return
			}
			if err != nil {
				t.Fatalf("K0rdentDir: %v\n%s", err, lg)
			}
			if !strings.Contains(lg.String(), tc.wantLog) {
				t.Errorf("log lacks %q:\n%s", tc.wantLog, lg)
			}
			goRan, _ := os.ReadFile(goLog)
			var recs map[string]images.Record
			data, rerr := os.ReadFile(filepath.Join(p.Dir, ImagesFile))
			if rerr == nil {
				if err := json.Unmarshal(data, &recs); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range r.Controllers {
				bin, _ := os.ReadFile(p.Binary(c.Name))
				shouldBuild := false
				for _, b := range tc.wantBuilt {
					shouldBuild = shouldBuild || b == c.Name
				}
				built := strings.Contains(string(goRan), "build "+c.Package+"\n")
				if built != shouldBuild {
					t.Errorf("%s: built %v, want %v", c.Name, built, shouldBuild)
				}
				if shouldBuild {
					continue
				}
				if !strings.Contains(string(bin), "pulled "+c.Name) {
					t.Errorf("%s is %q, not the image's manager", c.Name, bin)
				}
				rec := recs[c.Name]
				ref, _ := images.Resolve(refs[c.Name], images.Options{Mirror: host})
				if rec.Digest != digests[c.Name] || rec.Ref != ref.String() || rec.Path != "/manager" || len(rec.SHA256) != 64 {
					t.Errorf("%s: record %+v, want %s from %s", c.Name, rec, digests[c.Name], ref)
				}
			}
			if _, why := K0rdentAvailable(r, false, K0rdentCacheDir(cacheRoot)); why != "" {
				t.Errorf("not available: %s", why)
			}
		})
	}
}
