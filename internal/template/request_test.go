package template

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestValidateAllBadInput: what keeps the charts from being checked is
// bad input, before any chart is read.
func TestValidateAllBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		name string
		r    Request
		want string
	}{
		{"--crds with --kubeconfig", Request{CRDs: []string{"crds"}, Kubeconfig: "kc"}, "give --crds or --kubeconfig, not both"},
		{"missing CRDs", Request{CRDs: []string{missing}}, "missing"},
		{"missing policy", Request{Policies: []string{missing}}, "missing"},
		{"unknown rule", Request{Options: ChartOptions{Disable: []string{"NOPE999"}}}, "NOPE999"},
		{"missing chart", Request{Charts: []string{missing}}, "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ValidateAll(context.Background(), tc.r)
			if !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want bad input containing %q", err, tc.want)
			}
		})
	}
}

func TestWriteObjects(t *testing.T) {
	objs := []Object{
		{Template: "templates/cluster.yaml", Unstructured: &unstructured.Unstructured{Object: map[string]any{"kind": "Cluster"}}},
		{Template: "templates/machines.yaml", Unstructured: &unstructured.Unstructured{Object: map[string]any{"kind": "Machine"}}},
	}
	var y, j bytes.Buffer
	if err := WriteObjects(&y, "yaml", objs); err != nil {
		t.Fatal(err)
	}
	if want := "# Source: templates/cluster.yaml\nkind: Cluster\n---\n# Source: templates/machines.yaml\nkind: Machine\n"; y.String() != want {
		t.Errorf("yaml:\n%s\nwant:\n%s", y.String(), want)
	}
	if err := WriteObjects(&j, "json", objs); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Kind  string           `json:"kind"`
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(j.Bytes(), &list); err != nil || list.Kind != "List" || len(list.Items) != 2 {
		t.Errorf("json %s: %v", j.String(), err)
	}
}
