package docsrepo

import (
	"path/filepath"
	"testing"

	"github.com/k0rdent/kbook/internal/fuzzseed"
)

// FuzzLoadConfig: any input either loads or fails with an error naming the file;
// never a panic. The seeds are testdata/kbook.yaml and testdata/hostile/ (a YAML
// alias bomb: it must end, in bounded time and memory, as the seed run of
// go test checks).
func FuzzLoadConfig(f *testing.F) {
	fuzzseed.Add(f, "testdata/kbook.yaml", "testdata/hostile/*")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzseed.ErrorNamesFile(t, "kbook.yaml", data, func(path string) error {
			_, err := LoadConfig(filepath.Dir(path))
			return err
		})
	})
}
