package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dependencyUpdate packs the base chart into charts/ with settings kept
// out of the user's Helm configuration.
func dependencyUpdate(t *testing.T, dir string) {
	t.Helper()
	t.Setenv("HELM_REPOSITORY_CONFIG", filepath.Join(t.TempDir(), "repositories.yaml"))
	t.Setenv("HELM_REPOSITORY_CACHE", t.TempDir())
	t.Setenv("HELM_REGISTRY_CONFIG", filepath.Join(t.TempDir(), "config.json"))
	if err := DependencyUpdate(dir, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
}

func TestExtend(t *testing.T) {
	root := t.TempDir()
	base := filepath.Join(root, "acme-base")
	if _, _, err := Init(ChartOptions{Name: "acme-base", Dir: base, Provider: "docker"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "acme-docker")
	_, files, err := Extend(ExtendOptions{Name: "acme-docker", Dir: dir, Base: base, Registry: "registry.acme.io",
		Labels: map[string]string{"acme.io/cost-center": "platform"}, Values: map[string]any{"worker": map[string]any{"replicas": 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(files, " ") != ".helmignore Chart.yaml README.md templates/_helpers.tpl templates/org-labels.yaml values.schema.json values.yaml" {
		t.Errorf("files %v", files)
	}
	chart, _ := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	for _, want := range []string{"name: \"acme-docker\"", "repository: file://../acme-base", "alias: base",
		"cluster.x-k8s.io/provider: infrastructure-docker, control-plane-kubeadm, bootstrap-kubeadm",
		"k0rdent.mirantis.com/k8s-version: v1.34.0"} {
		if !strings.Contains(string(chart), want) {
			t.Errorf("Chart.yaml lacks %q:\n%s", want, chart)
		}
	}
	dependencyUpdate(t, dir)
	// Render as kcm would, with the identity passed on to the base chart.
	cfg := filepath.Join(dir, "cd-config.yaml")
	if err := os.WriteFile(cfg, []byte("base:\n  clusterIdentity:\n    name: docker-identity\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	objs := render(t, dir, "dev-1", "cd-config.yaml")
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.GetKind())
		switch o.GetKind() {
		case "Cluster":
			if o.GetLabels()["acme.io/cost-center"] != "platform" {
				t.Errorf("Cluster labels %v", o.GetLabels())
			}
		case "DockerMachineTemplate":
			img, _, _ := unstructuredString(o.Object, "spec", "template", "spec", "customImage")
			if !strings.HasPrefix(img, "registry.acme.io/") {
				t.Errorf("machine image %q not from the organisation registry", img)
			}
		case "MachineDeployment":
			if r, _, _ := unstructuredInt(o.Object, "spec", "replicas"); r != 2 {
				t.Errorf("worker replicas %d, want the organisation default 2", r)
			}
		}
	}
	if len(objs) != 8 {
		t.Errorf("rendered %v: want the base chart's 7 objects and the wrapper's ConfigMap", kinds)
	}
}

func TestExtendErrors(t *testing.T) {
	dir := t.TempDir()
	notTemplate := filepath.Join(dir, "plain")
	if err := os.MkdirAll(notTemplate, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(notTemplate, "Chart.yaml"), []byte("apiVersion: v2\nname: plain\nversion: 1.0.0\n"), 0o644)
	tests := []struct {
		o    ExtendOptions
		want string
	}{
		{ExtendOptions{Name: "x", Dir: filepath.Join(dir, "x1"), Base: filepath.Join(dir, "missing")}, "--extend " + filepath.Join(dir, "missing") + ": not a chart directory"},
		{ExtendOptions{Name: "x", Dir: filepath.Join(dir, "x2"), Base: notTemplate}, notTemplate + ": Chart.yaml has no cluster.x-k8s.io/provider annotation"},
		{ExtendOptions{Name: "x", Dir: filepath.Join(dir, "x3"), Base: "oci://ghcr.io/k0rdent/kcm/charts/aws-standalone-cp@1.0.20"}, "oci://ghcr.io/k0rdent/kcm/charts/aws-standalone-cp@1.0.20: remote charts need a download; pull it first (helm pull oci://ghcr.io/k0rdent/kcm/charts/aws-standalone-cp --version 1.0.20)"},
	}
	for _, tc := range tests {
		if _, _, err := Extend(tc.o); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Extend(%s) error = %v\nwant %q", tc.o.Base, err, tc.want)
		}
	}
}

func unstructuredString(obj map[string]any, path ...string) (string, bool, error) {
	v, ok := walk(obj, path)
	s, _ := v.(string)
	return s, ok, nil
}

func unstructuredInt(obj map[string]any, path ...string) (int64, bool, error) {
	v, ok := walk(obj, path)
	switch n := v.(type) {
	case int64:
		return n, ok, nil
	case float64:
		return int64(n), ok, nil
	}
	return 0, ok, nil
}

func walk(obj map[string]any, path []string) (any, bool) {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[p]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}
