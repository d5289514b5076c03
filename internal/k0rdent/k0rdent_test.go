package k0rdent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func TestCanonicalDuration(t *testing.T) {
	for in, want := range map[string]string{"10m": "10m0s", "10m0s": "10m0s", "1h": "1h0m0s", "90s": "1m30s", "500ms": "500ms", "0s": "0s"} {
		if got, err := CanonicalDuration(in); err != nil || got != want {
			t.Errorf("CanonicalDuration(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := CanonicalDuration("ten minutes"); err == nil || !strings.Contains(err.Error(), `"ten minutes" is not a duration`) {
		t.Errorf("bad duration: %v", err)
	}
}

func TestTemplateName(t *testing.T) {
	for _, c := range [][3]string{
		{"aws-standalone-cp", "1.0.20", "aws-standalone-cp-1-0-20"},
		{"Acme", "0.1.0+build_7", "acme-0-1-0-build-7"},
	} {
		if got := TemplateName(c[0], c[1]); got != c[2] {
			t.Errorf("TemplateName(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// The duration fields listed are exactly the ones kcm's CRDs declare with
// Flux's duration patterns in kinds whose spec is immutable.
func TestImmutableDurationsMatchCRDs(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "crds", "k0rdent")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("needs kcm's CRDs in %s: %v", dir, err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	found := map[string][]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Names    struct{ Kind string }
				Versions []struct {
					Schema struct {
						OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
					}
				}
			}
		}
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatal(err)
		}
		for _, v := range crd.Spec.Versions {
			root := v.Schema.OpenAPIV3Schema
			spec, _ := root["properties"].(map[string]any)["spec"].(map[string]any)
			immutable := false
			rules, _ := spec["x-kubernetes-validations"].([]any)
			for _, r := range rules {
				immutable = immutable || r.(map[string]any)["rule"] == "self == oldSelf"
			}
			if !immutable {
				continue
			}
			var walk func(s map[string]any, path string)
			walk = func(s map[string]any, path string) {
				if p, _ := s["pattern"].(string); s["type"] == "string" && strings.Contains(p, "(ms|s|m") {
					found[crd.Spec.Names.Kind] = append(found[crd.Spec.Names.Kind], path)
				}
				props, _ := s["properties"].(map[string]any)
				for k, c := range props {
					walk(c.(map[string]any), path+"."+k)
				}
			}
			walk(spec, "spec")
		}
	}
	for kind, paths := range found {
		slices.Sort(paths)
		want := slices.Sorted(slices.Values(ImmutableDurations[kind]))
		if !slices.Equal(paths, want) {
			t.Errorf("%s: the CRD has duration fields\n  %q\nImmutableDurations lists\n  %q", kind, paths, want)
		}
	}
	for kind := range ImmutableDurations {
		if _, ok := found[kind]; !ok {
			t.Errorf("%s: no immutable spec with durations in the CRDs", kind)
		}
	}
}

// TestFindCondition: the condition of the type asked, or none.
func TestFindCondition(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": []any{
		"not a map", map[string]any{"type": "Other", "status": "False"}, map[string]any{"type": "Ready", "status": "True", "message": "ok"},
	}}}}
	if c, ok := FindCondition(u, "Ready"); !ok || c["status"] != "True" || c["message"] != "ok" {
		t.Errorf("Ready: %v %v", c, ok)
	}
	if c, ok := FindCondition(u, "Missing"); ok || c != nil {
		t.Errorf("Missing: %v %v", c, ok)
	}
	if _, ok := FindCondition(&unstructured.Unstructured{Object: map[string]any{}}, "Ready"); ok {
		t.Error("no status: found")
	}
}
