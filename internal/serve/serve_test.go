package serve

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// TestBadInput: bad options are bad input before anything is served,
// each naming the flag.
func TestBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"--version", Serve(ctx, Options{Dir: missing, Version: "../x"}), "--version: "},
		{"--port", Serve(ctx, Options{Dir: missing, Version: "next", Port: 70000}), "--port 70000: want 0 to 65535"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !findings.IsInput(tc.err) || !strings.Contains(tc.err.Error(), tc.want) {
				t.Errorf("error %v, want bad input containing %q", tc.err, tc.want)
			}
		})
	}
}
