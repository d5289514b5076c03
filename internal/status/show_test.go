package status

import (
	"bytes"
	"context"
	"errors"
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
		o    Options
		want string
	}{
		{"--watch with json", Options{Watch: true, Format: "json"}, "--watch prints text"},
		{"missing kubeconfig", Options{Kubeconfig: missing, Format: "text"}, "load kubeconfig: "},
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
	// Once the context is done, bad options too end as interrupted.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Show(ctx, Options{Name: "dev-1", Watch: true, Format: "json"}); !errors.Is(err, context.Canceled) {
		t.Errorf("done context: %v, want context.Canceled", err)
	}
}
