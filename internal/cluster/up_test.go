package cluster

import (
	"context"
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
