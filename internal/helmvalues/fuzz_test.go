package helmvalues

import (
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/fuzzseed"
)

// FuzzCompileSchema: any values.schema.json either compiles or fails with
// an error; never a panic, never a fetch (kbook compiles offline). The
// hostile seeds (deeply nested, self-referencing) must end in bounded
// time, as the seed run of go test checks.
func FuzzCompileSchema(f *testing.F) {
	fuzzseed.Add(f, "testdata/*.json", "testdata/hostile/*")
	f.Add([]byte(`{"$ref": "#"}`))
	f.Add([]byte(`{"$ref": "https://example.com/schema.json"}`))
	f.Add([]byte(strings.Repeat(`{"properties":{"a":`, 100) + "{}" + strings.Repeat("}}", 100)))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = CompileSchema(data)
	})
}
