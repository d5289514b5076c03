package cluster

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/cluster/local/download"
)

// BenchmarkFirstStartDownload is the first local cluster after go install
// on a machine with a network, measured against an in-process
// setup-envtest index whose archive is packed (before the timer) from the
// binaries kbook built: "warm" starts from binaries already in the cache
// (the baseline), "download" from an empty cache - the index, the archive,
// its sha512, the extraction, then the start. hack/bench-speed.sh prints
// the ratio. No real download site is reached.
func BenchmarkFirstStartDownload(b *testing.B) {
	dir := benchAssets(b)
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	for _, n := range []string{binaries.KubeAPIServer, binaries.Etcd} {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			b.Fatal(err)
		}
		if err := tw.WriteHeader(&tar.Header{Name: "controller-tools/envtest/" + n, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(data))}); err != nil {
			b.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			b.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		b.Fatal(err)
	}
	archive := buf.Bytes()
	sum := sha512.Sum512(archive)
	name := fmt.Sprintf("envtest-%s-%s-%s.tar.gz", binaries.KubernetesVersion, runtime.GOOS, runtime.GOARCH)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/index.yaml":
			fmt.Fprintf(w, "releases:\n  %s:\n    %s:\n      hash: %s\n      selfLink: http://%s/%s\n", binaries.KubernetesVersion, name, hex.EncodeToString(sum[:]), r.Host, name)
		case "/" + name:
			_, _ = w.Write(archive)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	up := func(b *testing.B, o Options) {
		c, err := Up(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Stop(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			up(b, Options{Backend: Local, AssetsDir: dir})
		}
	})
	b.Run("download", func(b *testing.B) {
		b.Setenv(binaries.EnvAssets, "")
		b.Setenv(download.EnvIndexURL, srv.URL+"/index.yaml")
		for b.Loop() {
			b.StopTimer()
			b.Setenv(cache.EnvDir, b.TempDir())
			b.StartTimer()
			up(b, Options{Backend: Local, AssetsFrom: string(binaries.Download)})
		}
	})
}
