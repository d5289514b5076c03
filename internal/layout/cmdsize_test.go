package layout

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The budget of cmd/kbook's code (not its tests): the commands only wire
// flags to one library call and an exit code (issue 16), so what grows
// past this is work that belongs in the package that owns the verb.
const (
	cmdLinesMax     = 1280 // 1200, and kbook cluster image, load-image and the kind image flags (issue 36)
	cmdFileLinesMax = 200
)

// TestCmdOnlyWires fails when cmd/kbook's non-test Go code is over its
// budget in all, or in one file.
func TestCmdOnlyWires(t *testing.T) {
	files, err := filepath.Glob("../../cmd/kbook/*.go")
	if err != nil {
		t.Fatal(err)
	}
	total, counted := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := bytes.Count(data, []byte("\n"))
		if n > cmdFileLinesMax {
			t.Errorf("%s: %d lines, over the %d a file of cmd/kbook may have: move what is not wiring into the package that owns it", filepath.Base(f), n, cmdFileLinesMax)
		}
		total += n
		counted++
	}
	if counted < 5 {
		t.Fatalf("found %d Go files in cmd/kbook, want the command's", counted)
	}
	if total > cmdLinesMax {
		t.Errorf("cmd/kbook: %d lines of non-test Go, over its budget of %d: move what is not wiring into the package that owns it", total, cmdLinesMax)
	}
	t.Logf("cmd/kbook: %d lines in %d files", total, counted)
}
