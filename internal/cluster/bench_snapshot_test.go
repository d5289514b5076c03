package cluster

import (
	"testing"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
)

// BenchmarkLocalStartK0rdent starts the local API server serving the
// CRDs of the default k0rdent release, API only (86 CRDs for v1.11.4),
// until they are served, then stops it: "no-snapshot" installs them on an
// empty server every time, "snapshot" starts from the etcd data saved the
// first time (made before the timer starts). hack/bench-speed.sh prints
// the ratio.
func BenchmarkLocalStartK0rdent(b *testing.B) {
	dir := benchAssets(b)
	snaps := b.TempDir()
	o := Options{Backend: Local, AssetsDir: dir, K0rdent: controllers.DefaultK0rdentVersion, K0rdentAPIOnly: true, SnapshotDir: snaps, Procs: apitest.Procs(b)}
	benchSnapshotOrNot(b, o)
}

// BenchmarkLocalStartPlane starts the local API server and the default
// k0rdent release's plane with its controllers until the Management is
// ready, then stops both: "no-snapshot" bootstraps it on an empty server
// every time, "snapshot" starts from the snapshot of the bootstrapped
// plane (saved before the timer starts). One plane per machine: it holds
// plane.LockMachine throughout. hack/bench-speed.sh prints the ratio.
func BenchmarkLocalStartPlane(b *testing.B) {
	dir, r := planeAssets(b)
	o := Options{Backend: Local, AssetsDir: dir, K0rdent: r.Version, SnapshotDir: b.TempDir(), Procs: apitest.Procs(b)}
	benchSnapshotOrNot(b, o)
}

// benchSnapshotOrNot times Up and Stop of o without a snapshot
// ("no-snapshot") and from the snapshot saved by a first, untimed, start
// ("snapshot").
func benchSnapshotOrNot(b *testing.B, o Options) {
	b.Run("no-snapshot", func(b *testing.B) {
		o := o
		o.NoSnapshot = true
		for b.Loop() {
			benchUp(b, o)
		}
	})
	b.Run("snapshot", func(b *testing.B) {
		benchUp(b, o) // saves the snapshot
		b.ResetTimer()
		for b.Loop() {
			benchUp(b, o)
		}
	})
}
