package testfile

import (
	"path/filepath"
	"testing"
)

// TestWriteReadCopy: a file written below a new folder reads back, and a
// copy of the folder holds it.
func TestWriteReadCopy(t *testing.T) {
	dir := t.TempDir()
	p := Write(t, dir, "a/b.txt", "hello\n")
	if got := Read(t, p); got != "hello\n" {
		t.Fatalf("read %q", got)
	}
	c := Copy(t, dir, "copy")
	MustContain(t, "the copy", Read(t, filepath.Join(c, "a", "b.txt")), "hello")
}
