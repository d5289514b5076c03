package upgrade

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadConfig: any input either loads or fails with an error naming the file;
// never a panic. The seeds are testdata/ and testdata/hostile/ (a YAML
// alias bomb: it must end, in bounded time and memory, as the seed run of
// go test checks).
func FuzzLoadConfig(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/configs/*.yaml")
	hostile, _ := filepath.Glob("testdata/hostile/*")
	for _, s := range append(seeds, hostile...) {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		file := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(file); err != nil && !strings.Contains(err.Error(), "config.yaml") {
			t.Fatalf("error without the file: %v", err)
		}
	})
}
