package gobuild

import (
	"reflect"
	"strings"
	"testing"
)

func TestRequires(t *testing.T) {
	const mod = `module example.org/m

go 1.26.0

require (
	example.org/a v1.0.0
	example.org/b v0.0.0
	example.org/c v1.2.0 // indirect
)

replace example.org/b => example.org/b v0.34.12

replace example.org/c => ../c

replace example.org/unused => example.org/unused v9.0.0
`
	got, err := Requires("go.mod", []byte(mod))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"example.org/a": "v1.0.0", "example.org/b": "v0.34.12"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Requires = %v, want %v", got, want)
	}
	if _, err := Requires("src/go.mod", []byte("module\nrequire (\n")); err == nil || !strings.Contains(err.Error(), "src/go.mod:") {
		t.Errorf("a broken go.mod: err = %v, want one naming src/go.mod and its line", err)
	}
}

func TestVersionDiff(t *testing.T) {
	a := map[string]string{"x": "v1", "y": "v2", "only-a": "v1"}
	b := map[string]string{"x": "v1", "y": "v3", "only-b": "v1"}
	diff, shared := VersionDiff(a, b)
	if want := []string{"y: v2, v3"}; !reflect.DeepEqual(diff, want) || shared != 2 {
		t.Errorf("VersionDiff = %v, %d; want %v, 2", diff, shared, want)
	}
}
