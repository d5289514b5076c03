package status

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// TestShowBadInput: bad options and a kubeconfig that does not load are
// bad input, before any cluster is read.
func TestShowBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		name string
		o    ShowOptions
		want string
	}{
		{"--watch with json", ShowOptions{Watch: true, Format: "json"}, "--watch prints text"},
		{"missing kubeconfig", ShowOptions{Kubeconfig: missing, Format: "text"}, "load kubeconfig: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			tc.o.Name, tc.o.Out = "dev-1", &out
			err := Show(context.Background(), tc.o)
			if !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) || out.Len() > 0 {
				t.Errorf("error %v, output %q; want bad input containing %q and no output", err, out.String(), tc.want)
			}
		})
	}
}
