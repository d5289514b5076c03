package provider

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkValidateSharedCorpus validates every file of the shared
// provider corpus (12 files, ~9 MB of released CRDs) in one process, each
// file loaded and checked as `kbook provider validate FILE` does.
func BenchmarkValidateSharedCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(shared(b, "providers"), "*.yaml"))
	var size int64
	for _, f := range files {
		fi, _ := os.Stat(f)
		size += fi.Size()
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			s, err := Load([]string{f}, RenderOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if r := Validate(s, Options{}); r.Errors() > 0 {
				b.Fatalf("%s: %d errors", f, r.Errors())
			}
		}
	}
}
