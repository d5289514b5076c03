package kcminstall

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/k0rdent/kbook/internal/k0rdent"
)

// renderObjects renders ch with values as kcm's HelmRelease would and
// returns the objects.
func renderObjects(t *testing.T, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	ch, err := KubeadmChart("v1.13.4")
	if err != nil {
		t.Fatal(err)
	}
	vals, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: "r", Namespace: "kcm-system"}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.Render(ch, vals)
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, doc := range out {
		for _, part := range strings.Split(doc, "\n---") {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(part), &m); err != nil {
				t.Fatalf("%v in\n%s", err, part)
			}
			if m != nil {
				objs = append(objs, &unstructured.Unstructured{Object: m})
			}
		}
	}
	return objs
}

// TestKubeadmChart: under kcm's global registry the chart makes the
// operator's kubeadm BootstrapProvider and ControlPlaneProvider fetch the
// components releaseComponents pushes and run the images loadImages names
// (<registry>/capi/<upstream image's name>); without one, the released
// components. Its ProviderTemplate and Management entry are kcm's shape,
// from the templates repository.
func TestKubeadmChart(t *testing.T) {
	// (controllers.ControllerImages' names, registry.k8s.io/cluster-api/...)
	want := map[string][2]string{
		"BootstrapProvider":    {"reg:5000/capi/cluster-api-bootstrap-kubeadm-components:v1.13.4", "reg:5000/capi/kubeadm-bootstrap-controller:v1.13.4"},
		"ControlPlaneProvider": {"reg:5000/capi/cluster-api-control-plane-kubeadm-components:v1.13.4", "reg:5000/capi/kubeadm-control-plane-controller:v1.13.4"},
	}
	objs := renderObjects(t, map[string]any{"global": map[string]any{"registry": "reg:5000"}})
	if len(objs) != 2 {
		t.Fatalf("%d objects, want 2", len(objs))
	}
	for _, o := range objs {
		w, ok := want[o.GetKind()]
		if !ok || o.GetName() != "kubeadm" {
			t.Errorf("unexpected %s %s", o.GetKind(), o.GetName())
			continue
		}
		v, _, _ := unstructured.NestedString(o.Object, "spec", "version")
		oci, _, _ := unstructured.NestedString(o.Object, "spec", "fetchConfig", "oci")
		cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "deployment", "containers")
		img := ""
		if len(cs) == 1 {
			img, _ = cs[0].(map[string]any)["imageUrl"].(string)
		}
		if v != "v1.13.4" || oci != w[0] || img != w[1] {
			t.Errorf("%s: version %q, oci %q, image %q; want v1.13.4, %q, %q", o.GetKind(), v, oci, img, w[0], w[1])
		}
	}
	for _, o := range renderObjects(t, nil) {
		if _, found, _ := unstructured.NestedMap(o.Object, "spec", "fetchConfig"); found {
			t.Errorf("%s without a global registry has a fetchConfig", o.GetKind())
		}
	}

	ch, _ := KubeadmChart("v1.13.4")
	pt, entry, err := kubeadmTemplate(ch)
	if err != nil {
		t.Fatal(err)
	}
	repo, _, _ := unstructured.NestedString(pt.Object, "spec", "helm", "chartSpec", "sourceRef", "name")
	if pt.GetName() != "cluster-api-provider-kubeadm-1-13-4" || repo != k0rdent.TemplatesRepoName ||
		entry["name"] != KubeadmProvider || entry["template"] != pt.GetName() {
		t.Errorf("ProviderTemplate %s from %s, entry %v", pt.GetName(), repo, entry)
	}
	if got := ch.Metadata.Annotations[k0rdent.ProviderLabel]; got != "bootstrap-kubeadm, control-plane-kubeadm" {
		t.Errorf("providers annotation %q", got)
	}
}
