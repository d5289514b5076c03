package version

import (
	"runtime"
	"strings"
	"testing"
)

// TestLine: kbook version names the stamped version and commit (make
// release's -X flags) and the platform; without them, what the build
// info says.
func TestLine(t *testing.T) {
	defer func(v, c string) { Version, Commit = v, c }(Version, Commit)
	Version, Commit = "v0.3.0", "3f2a1c9e0b1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f"
	want := "kbook v0.3.0 (commit 3f2a1c9e0b1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f, " + runtime.GOOS + "/" + runtime.GOARCH + " " + runtime.Version() + ")"
	if got := Line(); got != want {
		t.Errorf("stamped: %q, want %q", got, want)
	}
	Version, Commit = "", ""
	got := Line()
	if !strings.HasPrefix(got, "kbook "+String()+" (") || !strings.HasSuffix(got, Platform()+")") {
		t.Errorf("unstamped: %q (String %q)", got, String())
	}
	if rev := Revision(); rev != "" && !strings.Contains(got, "(commit "+rev+", ") {
		t.Errorf("unstamped: %q lacks the build info's revision %s", got, rev)
	}
}
