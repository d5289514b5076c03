package testfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write writes content to name below dir, making its folders, and returns
// its path.
func Write(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Read returns the content of file.
func Read(t testing.TB, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Copy copies the folder src into a new folder named base in a temporary
// folder of the test, and returns its path.
func Copy(t testing.TB, src, base string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), base)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// MustContain fails the test (and goes on) for each of wants that s,
// which what names, lacks.
func MustContain(t testing.TB, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}
