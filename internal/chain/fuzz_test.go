package chain

import (
	"testing"

	"github.com/k0rdent/kbook/internal/fuzzseed"
)

// FuzzChainLoad: any input either loads or fails with an error naming the file;
// never a panic. The seeds are testdata/ and testdata/hostile/ (a YAML
// alias bomb: it must end, in bounded time and memory, as the seed run of
// go test checks).
func FuzzChainLoad(f *testing.F) {
	fuzzseed.Add(f, "testdata/chains/*.yaml", "testdata/hostile/*")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzseed.ErrorNamesFile(t, "chain.yaml", data, func(path string) error {
			_, err := Load(path)
			return err
		})
	})
}
