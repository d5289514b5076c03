package local

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
)

// TestStartEtcdFails checks that an etcd which cannot start fails Start
// with etcd's error: kube-apiserver, started beside it, would otherwise
// wait for it until giving up by itself (about 20 s), on each of start's
// three tries.
func TestStartEtcdFails(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver: not with -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("kube-apiserver is found in /proc to be ended")
	}
	real, why := binaries.Available()
	if why != "" {
		t.Skip(why)
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(real, binaries.KubeAPIServer), filepath.Join(dir, binaries.KubeAPIServer)); err != nil {
		t.Fatal(err)
	}
	etcd := "#!/bin/sh\necho 'fake etcd: cannot start' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, binaries.Etcd), []byte(etcd), 0o755); err != nil {
		t.Fatal(err)
	}
	type result struct {
		s   *Server
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Start(dir, nil)
		done <- result{s, err}
	}()
	// Each of the three tries ends as soon as etcd has exited and
	// kube-apiserver has been killed (1.3 s for all three, idle). Without
	// the kill kube-apiserver gives up by itself after about 20 s without
	// etcd (63 s for the three): 45 s tells the two apart with room for a
	// loaded machine.
	select {
	case r := <-done:
		if r.err == nil {
			_ = r.s.Stop()
			t.Fatal("Start succeeded without etcd")
		}
		if !strings.Contains(r.err.Error(), "etcd") {
			t.Errorf("Start error = %v; want etcd's", r.err)
		}
	case <-time.After(45 * time.Second):
		t.Fatal("Start still waiting for kube-apiserver 45 s after etcd failed")
	}
}
