package cache

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBinaryIDIsTheGoBuildID: on Linux a binary the go command built is
// known by the build ID it stamped (what go tool buildid prints), not by a
// hash of its whole file; a file without one has none.
func TestBinaryIDIsTheGoBuildID(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the build ID is read from ELF executables")
	}
	id, err := BinaryID()
	if err != nil {
		t.Fatal(err)
	}
	buildID, ok := strings.CutPrefix(id, "go-build-id:")
	if !ok || strings.Count(buildID, "/") != 3 {
		t.Fatalf("BinaryID() = %q, want go-build-id: and the go command's four parts", id)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The go command's own reading (a second of its start-up: not under -short).
	if !testing.Short() {
		if out, err := exec.Command("go", "tool", "buildid", exe).Output(); err == nil {
			if want := strings.TrimSpace(string(out)); buildID != want {
				t.Errorf("build ID %q, go tool buildid says %q", buildID, want)
			}
		}
	}
	notELF := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := goBuildID(notELF); got != "" {
		t.Errorf("goBuildID(a shell script) = %q, want none", got)
	}
}
