package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/schema"
	"helm.sh/helm/v3/pkg/chart"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func TestManifest(t *testing.T) {
	ch := &chart.Chart{Metadata: &chart.Metadata{Name: "acme-docker", Version: "1.2.0+build.1", APIVersion: "v2"}}
	got, err := ForChart(ch, Options{Repo: "acme-templates", RepoURL: "oci://registry.acme.io/charts"})
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  labels:
    k0rdent.mirantis.com/managed: "true"
  name: acme-templates
  namespace: kcm-system
spec:
  interval: 10m0s
  type: oci
  url: oci://registry.acme.io/charts
---
apiVersion: k0rdent.mirantis.com/v1beta1
kind: ClusterTemplate
metadata:
  name: acme-docker-1-2-0-build-1
  namespace: kcm-system
spec:
  helm:
    chartSpec:
      chart: acme-docker
      interval: 10m0s
      sourceRef:
        kind: HelmRepository
        name: acme-templates
      version: 1.2.0+build.1
`
	if string(got) != want {
		t.Errorf("Manifest =\n%s\nwant\n%s", got, want)
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{}, "--repo: the name of the HelmRepository"},
		{Options{Repo: "Bad_Repo"}, `--repo "Bad_Repo": not a valid object name`},
		{Options{Repo: "r", RepoURL: "ftp://x"}, `--repo-url "ftp://x": want an oci://`},
		{Options{Repo: "r", Name: "UPPER"}, `template name "UPPER": not a valid object name`},
		{Options{Repo: "r", Interval: "often"}, `--interval: "often" is not a duration`},
	} {
		if _, err := ForChart(ch, tc.o); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ForChart(%+v) error = %v, want %q", tc.o, err, tc.want)
		}
	}
	if _, err := ForPath("/nonexistent", Options{Repo: "r"}); err == nil || !strings.Contains(err.Error(), "load chart /nonexistent") {
		t.Errorf("missing chart: %v", err)
	}
}

// TestManifestMatchesCRD checks the ClusterTemplate against the published
// k0rdent CRD, offline, with the API server's own validation code.
func TestManifestMatchesCRD(t *testing.T) {
	crds := filepath.Join("..", "..", "..", "..", "shared", "crds", "k0rdent")
	if _, err := os.Stat(crds); err != nil {
		t.Skip("needs the k0rdent CRDs in ../shared/crds/k0rdent")
	}
	v, err := schema.FromFiles(crds)
	if err != nil {
		t.Fatal(err)
	}
	ch := &chart.Chart{Metadata: &chart.Metadata{Name: "acme-docker", Version: "0.1.0", APIVersion: "v2"}}
	data, err := ForChart(ch, Options{Repo: "acme-templates"})
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &obj.Object); err != nil {
		t.Fatal(err)
	}
	if errs := v.Validate(obj); len(errs) > 0 {
		t.Errorf("the API server would reject the ClusterTemplate: %v", errs.ToAggregate())
	}
}

// TestManifestCanonicalInterval: kcm stores "10m" as "10m0s" and then
// rejects every update of the template as a change of an immutable spec,
// so manifests carry the canonical form.
func TestManifestCanonicalInterval(t *testing.T) {
	ch := &chart.Chart{Metadata: &chart.Metadata{Name: "acme", Version: "1.0.0", APIVersion: "v2"}}
	for in, want := range map[string]string{"10m": "10m0s", "1h": "1h0m0s", "90s": "1m30s", "10m0s": "10m0s"} {
		got, err := ForChart(ch, Options{Repo: "r", RepoURL: "https://charts.example.com", Interval: in})
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(got), "interval: "+want+"\n"); n != 2 {
			t.Errorf("--interval %s: %d times interval: %s in\n%s", in, n, want, got)
		}
	}
	for _, bad := range []string{"ten minutes", "-5m", "0s"} {
		if _, err := ForChart(ch, Options{Repo: "r", Interval: bad}); err == nil || !strings.Contains(err.Error(), "--interval") {
			t.Errorf("--interval %q: %v", bad, err)
		}
	}
}
