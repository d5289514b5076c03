package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHelpFile: the binary's --help output is saved the first time and
// read from the file after that; a binary changed in place gets a new
// file; one that fails --help gets none.
func TestHelpFile(t *testing.T) {
	dir, helpDir := t.TempDir(), t.TempDir()
	bin, runs := filepath.Join(dir, "kube-apiserver"), filepath.Join(dir, "runs")
	write := func(help string, status int) {
		t.Helper()
		script := "#!/bin/sh\necho run >>" + runs + "\necho '" + help + "'\necho 'to stderr' >&2\nexit " + string(rune('0'+status)) + "\n"
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		data, _ := os.ReadFile(runs)
		return strings.Count(string(data), "run\n")
	}
	write("      --insecure-port int", 0)
	f := helpFile(helpDir, bin)
	if f == "" {
		t.Fatal("no help file")
	}
	data, err := os.ReadFile(f)
	if err != nil || string(data) != "      --insecure-port int\nto stderr\n" {
		t.Fatalf("help file %q %v: want the binary's combined output", data, err)
	}
	if again := helpFile(helpDir, bin); again != f || count() != 1 {
		t.Errorf("second call: %s, binary ran %d times; want %s and once", again, count(), f)
	}

	write("      --other-flag", 0)
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(bin, later, later); err != nil {
		t.Fatal(err)
	}
	changed := helpFile(helpDir, bin)
	if changed == "" || changed == f {
		t.Fatalf("changed binary: help file %q, want a new one beside %s", changed, f)
	}
	if data, _ := os.ReadFile(changed); !strings.Contains(string(data), "--other-flag") {
		t.Errorf("changed binary's help %q", data)
	}

	write("usage", 2)
	if err := os.Chtimes(bin, later.Add(time.Second), later.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if f := helpFile(helpDir, bin); f != "" {
		t.Errorf("failing --help: help file %s, want none", f)
	}
	if f := helpFile(helpDir, filepath.Join(dir, "missing")); f != "" {
		t.Errorf("missing binary: help file %s", f)
	}
}
