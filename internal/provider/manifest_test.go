package provider

import (
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/schema"
)

func TestManifest(t *testing.T) {
	v, err := schema.FromFiles(shared(t, "crds", "k0rdent"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := BuildManifest("testdata/valid/chart", ManifestOptions{Repo: "acme-providers", Schemas: v})
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.YAML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: ProviderTemplate", "name: cluster-api-provider-acme-0-1-0", "chart: cluster-api-provider-acme", "version: 0.1.0", "name: acme-providers",
		"#   - name: cluster-api-provider-acme\n#     template: cluster-api-provider-acme-0-1-0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("manifest lacks %q:\n%s", want, out)
		}
	}
	// The CRDs reject what kcm's API server would.
	m.Entry["bogus"] = true
	if err := m.check(v); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("unknown field accepted: %v", err)
	}
	for _, o := range []ManifestOptions{{}, {Repo: "Not_Valid"}} {
		if _, err := BuildManifest("testdata/valid/chart", o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := BuildManifest("testdata/nope", ManifestOptions{Repo: "r"}); err == nil {
		t.Error("missing chart accepted")
	}
}
