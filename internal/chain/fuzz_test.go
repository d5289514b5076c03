package chain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzChainLoad: any input either loads or fails with an error naming the file;
// never a panic. The seeds are testdata/ and testdata/hostile/ (a YAML
// alias bomb: it must end, in bounded time and memory, as the seed run of
// go test checks).
func FuzzChainLoad(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/chains/*.yaml")
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
		file := filepath.Join(dir, "chain.yaml")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(file); err != nil && !strings.Contains(err.Error(), "chain.yaml") {
			t.Fatalf("error without the file: %v", err)
		}
	})
}
