package cluster

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

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
	files := map[string][]byte{}
	for _, n := range []string{binaries.KubeAPIServer, binaries.Etcd} {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			b.Fatal(err)
		}
		files[n] = data
	}
	var buf bytes.Buffer
	if err := download.WriteArchive(&buf, files); err != nil {
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

	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			benchUp(b, Options{Backend: Local, AssetsDir: dir})
		}
	})
	b.Run("download", func(b *testing.B) {
		b.Setenv(binaries.EnvAssets, "")
		b.Setenv(download.EnvIndexURL, srv.URL+"/index.yaml")
		for b.Loop() {
			b.StopTimer()
			b.Setenv(cache.EnvDir, b.TempDir())
			b.StartTimer()
			benchUp(b, Options{Backend: Local, AssetsFrom: assetsfrom.Download})
		}
	})
}
