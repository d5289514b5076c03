package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/schema"
)

// validChart is a provider chart of package provider's test data.
var validChart = filepath.Join("..", "testdata", "valid", "chart")

// k0rdentCRDs are kcm's CRDs in the reference data beside the repository
// root (see ../shared/README.md); a test that needs them skips without
// them.
func k0rdentCRDs(t testing.TB) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "..", "shared", "crds", "k0rdent")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("reference data %s is not there (a clone outside the kbook workspace): %v", p, err)
	}
	return p
}

func TestForPath(t *testing.T) {
	v, err := schema.FromFiles(k0rdentCRDs(t))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ForPath(validChart, Options{Repo: "acme-providers", Schemas: v})
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
	for _, o := range []Options{{}, {Repo: "Not_Valid"}} {
		if _, err := ForPath(validChart, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := ForPath("testdata/nope", Options{Repo: "r"}); err == nil {
		t.Error("missing chart accepted")
	}
}

// TestManifestBadInput: a config or CRD path that cannot be read
// is bad input naming it, found before the chart is read.
func TestManifestBadInput(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(broken, []byte("a: [1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, config string
		crds         []string
		want         string
	}{
		{"missing config", filepath.Join(dir, "none.yaml"), nil, "none.yaml"},
		{"config that does not parse", broken, nil, broken + ": "},
		{"missing CRDs", "", []string{filepath.Join(dir, "crds")}, "crds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Manifest(filepath.Join(dir, "chart"), Options{Repo: "r", CRDs: tc.crds, ConfigFile: tc.config})
			if !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want bad input naming %q", err, tc.want)
			}
		})
	}
}

// TestManifest: the manifest of a chart, with its config from a
// values file, as YAML; a chart that does not build is bad input too.
func TestManifest(t *testing.T) {
	config := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(config, []byte("replicas: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Manifest(validChart, Options{Repo: "acme-providers", ConfigFile: config})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: ProviderTemplate", "name: cluster-api-provider-acme-0-1-0", "replicas: 2"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("manifest lacks %q:\n%s", want, out)
		}
	}
	if _, err := Manifest(validChart, Options{Repo: "Not_Valid"}); !findings.IsInput(err) {
		t.Errorf("a bad --repo: error %v, want bad input", err)
	}
}
