package schema_test

import (
	"path/filepath"
	"testing"

	"github.com/k0rdent/kbook/internal/schema"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// BenchmarkValidate validates 100 objects, the fixtures of testdata/objects
// in turn, against the loaded CRDs (all shared ones when present). The CEL
// programs are compiled before the timer starts, as they are after the first
// object of each kind.
func BenchmarkValidate(b *testing.B) {
	v := validator(b)
	files, err := filepath.Glob(filepath.Join(objectsDir, "*.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	var kinds []*unstructured.Unstructured
	for _, f := range files {
		if obj := readObject(b, f); v.Has(obj.GroupVersionKind()) {
			kinds = append(kinds, obj)
		}
	}
	objs := make([]*unstructured.Unstructured, 100)
	for i := range objs {
		objs[i] = kinds[i%len(kinds)]
		v.Validate(objs[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, obj := range objs {
			v.Validate(obj)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(objs)), "ns/object")
}

// BenchmarkFromFiles loads all the shared CRDs.
func BenchmarkFromFiles(b *testing.B) {
	needShared(b)
	for b.Loop() {
		if _, err := schema.FromFiles(sharedDirs...); err != nil {
			b.Fatal(err)
		}
	}
}
