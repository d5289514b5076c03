package template

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestValidateBadInput: what keeps the charts from being checked is
// bad input, before any chart is read; a context already done validates
// nothing.
func TestValidateBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"--crds with --kubeconfig", Options{CRDs: []string{"crds"}, Kubeconfig: "kc"}, "give --crds or --kubeconfig, not both"},
		{"missing CRDs", Options{CRDs: []string{missing}}, "missing"},
		{"missing policy", Options{Policies: []string{missing}}, "missing"},
		{"unknown rule", Options{Disable: []string{"NOPE999"}}, "NOPE999"},
		{"missing chart", Options{Charts: []string{missing}}, "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Validate(context.Background(), tc.o)
			if !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want bad input containing %q", err, tc.want)
			}
		})
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped")
	cancel(stop)
	if _, err := Validate(ctx, Options{Charts: []string{missing}}); !errors.Is(err, stop) {
		t.Errorf("done context: %v, want its cause", err)
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
