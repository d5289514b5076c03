package fuzzseed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Files returns the contents of the files each pattern (filepath.Glob,
// relative to the test's package) matches, in pattern then name order. A
// pattern that matches nothing fails the test: a seed corpus that moved
// would otherwise be lost without a word.
func Files(tb testing.TB, patterns ...string) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, pat := range patterns {
		names, err := filepath.Glob(pat)
		if err != nil {
			tb.Fatalf("seed pattern %s: %v", pat, err)
		}
		if len(names) == 0 {
			tb.Fatalf("seed pattern %s matches no file", pat)
		}
		for _, n := range names {
			data, err := os.ReadFile(n)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, data)
		}
	}
	return out
}

// Add adds the files the patterns match to f's corpus, as []byte.
func Add(f *testing.F, patterns ...string) {
	f.Helper()
	for _, data := range Files(f, patterns...) {
		f.Add(data)
	}
}

// Strings adds the files the patterns match to f's corpus, as strings.
func Strings(f *testing.F, patterns ...string) {
	f.Helper()
	for _, data := range Files(f, patterns...) {
		f.Add(string(data))
	}
}

// ErrorNamesFile writes data to a file called name in a new temporary
// directory and calls load with its path. An error from load must name
// the file (contain name), or the test fails.
func ErrorNamesFile(t *testing.T, name string, data []byte, load func(path string) error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := load(file); err != nil && !strings.Contains(err.Error(), name) {
		t.Fatalf("error without the file: %v", err)
	}
}
