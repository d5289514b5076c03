package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// TestStartDetachedBadBackend: kbook cluster up starts only local and
// kind clusters; any other backend is bad input, and nothing is written.
func TestStartDetachedBadBackend(t *testing.T) {
	root := t.TempDir()
	for _, backend := range []string{Kubeconfig, "none", ""} {
		t.Run(backend, func(t *testing.T) {
			s, err := StartDetached(context.Background(), UpOptions{Root: root, Name: "x", Cluster: Options{Backend: backend}})
			if err == nil || !findings.IsInput(err) || !strings.Contains(err.Error(), "local or kind") {
				t.Fatalf("state %v, err %v: want an input error naming local or kind", s, err)
			}
			if _, err := ReadState(root, "x"); err == nil {
				t.Errorf("a state written for a cluster that never started")
			}
		})
	}
}

// TestLineRelay: kbook cluster up shows the background process's log as
// it grows, a line once it is complete, each line once; a missing log
// (the process has not written yet) shows nothing.
func TestLineRelay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "serve.log")
	var got lines
	r := &lineRelay{path: path, log: &got}
	r.relay()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, step := range []struct{ write, want string }{
		{"", ""},
		{"starting etcd\nwaiting for kbook (pid 7: kbook run), running a local k0rdent plane for 3s…\n", "starting etcd\nwaiting for kbook (pid 7: kbook run), running a local k0rdent plane for 3s…\n"},
		{"installed 86 CRDs", "starting etcd\nwaiting for kbook (pid 7: kbook run), running a local k0rdent plane for 3s…\n"},
		{" in 1s\r\n\nkcm ready\n", "starting etcd\nwaiting for kbook (pid 7: kbook run), running a local k0rdent plane for 3s…\ninstalled 86 CRDs in 1s\nkcm ready\n"},
	} {
		if _, err := f.WriteString(step.write); err != nil {
			t.Fatal(err)
		}
		r.relay()
		if got.String() != step.want {
			t.Fatalf("after writing %q: relayed %q, want %q", step.write, got.String(), step.want)
		}
	}
}
