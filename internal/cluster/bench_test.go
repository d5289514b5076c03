package cluster

import (
	"context"
	"os"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
)

func benchAssets(b *testing.B) string {
	dir, why := binaries.Available()
	if why != "" {
		b.Skip(why)
	}
	return dir
}

// benchUp starts the cluster o describes and stops it.
func benchUp(b *testing.B, o Options) {
	b.Helper()
	if o.Procs == nil {
		o.Procs = apitest.Procs(b)
	}
	c, err := Up(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Stop(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLocalStart starts and stops the local API server with cached
// binaries (the warm start every kbook run pays once), without and with
// the k0rdent and Cluster API CRDs.
func BenchmarkLocalStart(b *testing.B) {
	dir := benchAssets(b)
	for _, tc := range []struct {
		name string
		crds []string
	}{{"bare", nil}, {"with-shared-crds", sharedCRDs}} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.name != "bare" && len(tc.crds) == 0 {
				b.Skip("no ../shared/crds")
			}
			for b.Loop() {
				c, err := Up(context.Background(), Options{Backend: Local, AssetsDir: dir, CRDs: tc.crds, Procs: apitest.Procs(b)})
				if err != nil {
					b.Fatal(err)
				}
				if err := c.Stop(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLocalColdStart builds the binaries into an empty cache first:
// what the very first run on a machine pays. Minutes; opt in with
// KBOOK_BENCH_COLD=1 and -benchtime=1x -timeout 60m.
func BenchmarkLocalColdStart(b *testing.B) {
	if os.Getenv("KBOOK_BENCH_COLD") != "1" {
		b.Skip("builds kube-apiserver and etcd from source (about ten minutes): set KBOOK_BENCH_COLD=1")
	}
	b.Setenv(binaries.EnvAssets, "")
	for b.Loop() {
		root := b.TempDir()
		dir, err := binaries.Dir(context.Background(), binaries.WithCacheDir(root), binaries.WithSource(assetsfrom.Build), binaries.WithKubectl(false))
		if err != nil {
			b.Fatal(err)
		}
		c, err := Up(context.Background(), Options{Backend: Local, AssetsDir: dir, Procs: apitest.Procs(b)})
		if err != nil {
			b.Fatal(err)
		}
		_ = c.Stop(context.Background())
	}
}
