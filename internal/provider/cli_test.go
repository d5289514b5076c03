package provider

import (
	"bytes"
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
