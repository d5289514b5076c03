package markdown

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkTranslateCorpus translates every page of the sveltos corpus
// (110 pages) per iteration.
func BenchmarkTranslateCorpus(b *testing.B) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "mkdocs", "sveltos")
	if _, err := os.Stat(filepath.Join(dir, "mkdocs.yml")); err != nil {
		b.Skipf("corpus absent: %v", err)
	}
	t := &testing.T{}
	opts := corpusProject(t, dir)
	type page struct {
		path string
		src  []byte
	}
	var pages []page
	_ = filepath.WalkDir(opts.DocsDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			if src, err := os.ReadFile(p); err == nil {
				pages = append(pages, page{p, src})
			}
		}
		return nil
	})
	var bytes int64
	for _, p := range pages {
		bytes += int64(len(p.src))
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pages {
			o := opts
			o.File, o.Path = p.path, p.path
			if _, err := Translate(p.src, o); err != nil {
				b.Fatal(err)
			}
		}
	}
}
