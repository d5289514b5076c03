package serve

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// TestBadInput: a bad --version or --port is bad input naming the flag,
// before anything is served (sitebuild's TestBadInput is kbook build's).
func TestBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	bad := map[string]Options{
		"--version: ":                       {Dir: missing, Version: "../x"},
		"--port 70000: want 0 to 65535":     {Dir: missing, Version: "next", Port: 70000},
		"--port -1: want 0 to 65535 (0: an": {Dir: missing, Version: "next", Port: -1},
	}
	for want, o := range bad {
		if err := Serve(context.Background(), o); !findings.IsInput(err) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Serve(%+v): %v, want bad input starting %q", o, err, want)
		}
	}
}
