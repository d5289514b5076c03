package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "x.md")
	if err := os.WriteFile(f, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(f, []byte("new")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(f)
	fi, _ := os.Stat(f)
	if string(data) != "new" || fi.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v", data, fi.Mode())
	}
	if err := Write(filepath.Join(dir, "fresh.json"), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "fresh.json")); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", fi.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := Write(filepath.Join(dir, "missing", "x.md"), nil); err == nil {
		t.Error("no error writing into a missing directory")
	}
}
