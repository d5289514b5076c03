//go:build e2e

package kindtest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/testctx"
)

// BenchmarkKindVsLocal measures, in one run, what kbook run pays for its
// cluster on each backend: a kind cluster of one node from kbook's warm
// node image, created, up to its node Ready and deleted, against the
// local backend's API server from cached binaries, started and stopped;
// it reports both, their ratio and the load. It needs an engine, the node
// image and the API server's binaries; without them it is skipped, saying
// which.
//
//	go test -run '^$' -bench KindVsLocal -benchtime 3x -timeout 30m ./internal/cluster/kindtest
func BenchmarkKindVsLocal(b *testing.B) {
	image := nodeImage(b)
	assets, why := binaries.Available()
	if why != "" {
		b.Skip(why)
	}
	reg, err := proc.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	ctx := context.Background()
	up := func(o cluster.Options) time.Duration {
		b.Helper()
		start := time.Now()
		c, err := cluster.Up(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		if ok, why := cluster.NodesReady(ctx, c); o.Backend == cluster.Kind && !ok {
			_ = c.Stop(ctx)
			b.Fatalf("nodes: %s", why)
		}
		if err := c.Stop(ctx); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var local, kind time.Duration
	var load float64
	for i := range b.N {
		local += up(cluster.Options{Backend: cluster.Local, AssetsDir: assets, Procs: reg})
		kind += up(cluster.Options{Backend: cluster.Kind, Name: fmt.Sprintf("kbt-bench-%d-%d", os.Getpid(), i), KindImage: image, Procs: reg})
		load += testctx.LoadAverage()
	}
	n := float64(b.N)
	b.ReportMetric(local.Seconds()/n, "local-s")
	b.ReportMetric(kind.Seconds()/n, "kind-s")
	b.ReportMetric(kind.Seconds()/local.Seconds(), "kind/local")
	b.ReportMetric(load/n, "load1")
	b.Logf("a cluster up, ready and gone: local %s, kind (one node, warm image) %s: %.1f×, load %.1f",
		(local / time.Duration(b.N)).Round(100*time.Millisecond), (kind / time.Duration(b.N)).Round(100*time.Millisecond), kind.Seconds()/local.Seconds(), load/n)
}
