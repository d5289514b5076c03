package kcminstall

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
)

func TestSetValuesKeepsComments(t *testing.T) {
	in := "# head\nimage:\n  repository: x # the repo\n  tag: latest\nother: 1\n"
	out, err := setValues([]byte(in), map[string]string{"image.tag": "1.11.4"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# head", "# the repo", "tag: 1.11.4", "other: 1"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if _, err := setValues([]byte(in), map[string]string{"image.digest.x": "y"}); err == nil || !strings.Contains(err.Error(), "no image.digest.x") {
		t.Errorf("a missing path: %v", err)
	}
}

func TestSplitImage(t *testing.T) {
	for ref, want := range map[string][2]string{
		"ghcr.io/fluxcd/source-controller:v1.9.3": {"ghcr.io/fluxcd/source-controller", "v1.9.3"},
		"127.0.0.1:5000/capi/x:v1":                {"127.0.0.1:5000/capi/x", "v1"},
	} {
		n, tag, err := splitImage(ref)
		if err != nil || n != want[0] || tag != want[1] {
			t.Errorf("%s: %q %q %v", ref, n, tag, err)
		}
	}
	if _, _, err := splitImage("127.0.0.1:5000/capi/x"); err == nil {
		t.Errorf("a reference without a tag was split")
	}
}

// TestFluxObjects builds Flux's controllers from the modules' own bases,
// as Install applies them: in the namespace asked, the image renamed, no
// Namespace object, no download.
func TestFluxObjects(t *testing.T) {
	r, err := controllers.K0rdent(controllers.DefaultK0rdentVersion)
	if err != nil {
		t.Fatal(err)
	}
	p, why := controllers.K0rdentAvailable(r, true)
	if why != "" {
		t.Skipf("k0rdent %s sources: %s", r.Version, why)
	}
	for _, tc := range []struct{ key, image, ref, deploy string }{
		{"flux-source", "fluxcd/source-controller", "ghcr.io/fluxcd/source-controller:v1.9.3", "source-controller"},
		{"flux-helm", "fluxcd/helm-controller", "ghcr.io/fluxcd/helm-controller:v1.6.2", "helm-controller"},
	} {
		objs, err := fluxObjects(p.ModuleDir(tc.key), "kcm-system", tc.image, tc.ref)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, o := range objs {
			kinds[o.GetKind()]++
			if o.GetKind() == "Namespace" {
				t.Errorf("%s: a Namespace object", tc.key)
			}
			if o.GetKind() == "Deployment" {
				if o.GetName() != tc.deploy || o.GetNamespace() != "kcm-system" {
					t.Errorf("%s: Deployment %s/%s", tc.key, o.GetNamespace(), o.GetName())
				}
				cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
				if len(cs) != 1 || cs[0].(map[string]any)["image"] != tc.ref {
					t.Errorf("%s: containers %v, want one of image %s", tc.key, cs, tc.ref)
				}
			}
		}
		if kinds["CustomResourceDefinition"] == 0 || kinds["Deployment"] != 1 || kinds["ClusterRole"] == 0 {
			t.Errorf("%s: objects by kind %v", tc.key, kinds)
		}
	}
	if _, err := fluxObjects(t.TempDir(), "kcm-system", "x", "y:1"); err == nil {
		t.Errorf("a folder without Flux's bases built")
	}
}

func TestReleaseChartsNeedsTheTemplates(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "provider"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ReleaseCharts(dir, "v1.11.4"); err == nil {
		t.Errorf("packaged a release with no cluster folder and no kcm-regional")
	}
}

// TestValues: kcm reaches kbook's registry as an air-gapped install
// reaches its own (templates repository and global registry, its CA in
// CASecret, never insecure); the subcharts not built here are off, and
// cert-manager v1.11 installs its CRDs under the key it knows.
func TestValues(t *testing.T) {
	v := Values("10.0.0.1:5000")
	ctl := v["controller"].(map[string]any)
	if ctl["templatesRepoURL"] != "oci://10.0.0.1:5000/charts" || ctl["globalRegistry"] != "10.0.0.1:5000" ||
		ctl["registryCertSecret"] != CASecret || ctl["insecureRegistry"] != nil {
		t.Errorf("controller values %v", ctl)
	}
	regional := v["regional"].(map[string]any)
	for _, sub := range []string{"velero", "reloader"} {
		if regional[sub].(map[string]any)["enabled"] != false {
			t.Errorf("regional.%s not turned off", sub)
		}
	}
	cm := regional["cert-manager"].(map[string]any)
	if cm["installCRDs"] != true || cm["enabled"] != nil || cm["startupapicheck"].(map[string]any)["enabled"] != false {
		t.Errorf("regional.cert-manager %v: want it on, installing its CRDs, without startupapicheck (its image is not built)", cm)
	}
	if _, set := regional["cluster-api-operator"]; set {
		t.Errorf("regional.cluster-api-operator set: kcm turns it on once cert-manager answers")
	}
	for _, sub := range []string{"flux2", "rbac-manager"} {
		if v[sub].(map[string]any)["enabled"] != false {
			t.Errorf("%s not turned off", sub)
		}
	}
}
