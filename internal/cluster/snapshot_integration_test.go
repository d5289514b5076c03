package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"k8s.io/client-go/discovery"
)

type lines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lines) Infof(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSnapshotStart starts the local API server with a CRD three times:
// the first start installs it and saves the snapshot, the second starts
// from it, and after the snapshot's database was damaged the third warns,
// installs the CRD again and saves a new snapshot. Each serves the CRD.
func TestSnapshotStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts local API servers; skipped with -short")
	}
	dir, why := binaries.Available()
	if why != "" {
		t.Skip(why)
	}
	snaps := t.TempDir()
	up := func(t *testing.T) string {
		t.Helper()
		log := &lines{}
		c, err := Up(context.Background(), Options{Backend: Local, AssetsDir: dir, CRDs: []string{"testdata/crds"}, SnapshotDir: snaps, Logger: log, Procs: apitest.Procs(t)})
		if err != nil {
			t.Fatalf("%v\n%s", err, log)
		}
		defer c.Stop(context.Background())
		dc, err := discovery.NewDiscoveryClientForConfig(c.RESTConfig())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dc.ServerResourcesForGroupVersion("example.kbook.io/v1"); err != nil {
			t.Fatalf("widgets not served: %v\n%s", err, log)
		}
		return log.String()
	}
	steps := []struct {
		name         string
		before       func(t *testing.T)
		want, unwant []string
	}{
		{"first start saves", nil,
			[]string{"installed 1 CRD from testdata/crds", "saved a snapshot of the server with 1 CRD", "started from the snapshot of 1 CRD"}, nil},
		{"second start restores", nil,
			[]string{"started from the snapshot of 1 CRD"}, []string{"installed", "saved"}},
		{"a damaged snapshot is made anew", func(t *testing.T) { damageSnapshot(t, snaps) },
			[]string{"warning: snapshot ", "differs from its manifest", "installed 1 CRD", "saved a snapshot"}, nil},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.before != nil {
				st.before(t)
			}
			log := up(t)
			for _, w := range st.want {
				if !strings.Contains(log, w) {
					t.Errorf("log lacks %q:\n%s", w, log)
				}
			}
			for _, w := range st.unwant {
				if strings.Contains(log, w) {
					t.Errorf("log has %q:\n%s", w, log)
				}
			}
		})
	}
}

// damageSnapshot flips a byte in the middle of the database of the one
// snapshot in snaps.
func damageSnapshot(t *testing.T, snaps string) {
	t.Helper()
	dbs, _ := filepath.Glob(filepath.Join(snaps, "*", "member", "snap", "db"))
	if len(dbs) != 1 {
		t.Fatalf("snapshot databases: %v", dbs)
	}
	b, err := os.ReadFile(dbs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(dbs[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
}
