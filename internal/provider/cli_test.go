package provider

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
// fails naming it, before the chart is read.
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
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
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
