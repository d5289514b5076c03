package provider

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

func TestWriteVariables(t *testing.T) {
	for _, tc := range []struct {
		name string
		vars []Variable
		want string
	}{
		{"none", nil, ""},
		{"required and defaulted", []Variable{{Name: "ACME_TOKEN"}, {Name: "ACME_REGION", Default: "eu-1", HasDefault: true}, {Name: "ACME_ZONE"}},
			"clusterctl variables to set: ACME_TOKEN, ACME_ZONE\nclusterctl variables with defaults: ACME_REGION (default \"eu-1\")\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			WriteVariables(&b, tc.vars)
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}

// TestManifestFilesBadInput: a config or CRD path that cannot be read
// is bad input naming it, found before the chart is read.
func TestManifestFilesBadInput(t *testing.T) {
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
			_, err := ManifestFiles(filepath.Join(dir, "chart"), ManifestOptions{Repo: "r"}, tc.crds, tc.config)
			if !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want bad input naming %q", err, tc.want)
			}
		})
	}
}

// TestManifestFiles: the manifest of a chart, with its config from a
// values file, as YAML; a chart that does not build is bad input too.
func TestManifestFiles(t *testing.T) {
	config := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(config, []byte("replicas: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := ManifestFiles("testdata/valid/chart", ManifestOptions{Repo: "acme-providers"}, nil, config)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: ProviderTemplate", "name: cluster-api-provider-acme-0-1-0", "replicas: 2"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("manifest lacks %q:\n%s", want, out)
		}
	}
	if _, err := ManifestFiles("testdata/valid/chart", ManifestOptions{Repo: "Not_Valid"}, nil, ""); !findings.IsInput(err) {
		t.Errorf("a bad --repo: error %v, want bad input", err)
	}
}

// TestContractCheckWithoutProviders: no --provider adds nothing.
func TestContractCheckWithoutProviders(t *testing.T) {
	check, err := ContractCheck(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := check("chart", nil); err != nil {
		t.Error(err)
	}
}
