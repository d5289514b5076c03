package inventory_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/controllergen"
	"github.com/k0rdent/kbook/internal/testctx"
)

// TestGeneratedCurrent: the committed deepcopy functions, CRDs and manager
// ClusterRole are what the Makefile's controller-gen generates from the
// types and markers today, and infrastructure-components.yaml joins them
// as `make components` does. Fix a failure with `make generate` here.
func TestGeneratedCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds controller-gen " + controllergen.Version + " on first use; run without -short")
	}
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mk), "controller-gen@"+controllergen.Version) {
		t.Errorf("Makefile: want controller-gen@%s, the version this test generates with", controllergen.Version)
	}
	ctx, cancel := testctx.New(t)
	defer cancel()
	bin, err := controllergen.Binary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := controllergen.Generate(ctx, bin, controllergen.Options{Dir: ".", APIPaths: "./api/...",
		RBACPaths: "./controller/...", RoleName: "inventory-manager"}, out); err != nil {
		t.Fatal(err)
	}
	stale, err := controllergen.Stale(out, ".", controllergen.Layout{ObjectDir: "api/v1alpha1", CRDDir: "config/crd/bases", RBACDir: "config/rbac"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stale {
		t.Errorf("%s; run make generate in examples/providers/inventory", s)
	}

	// make components: the manager, then each CRD and the RBAC, joined by ---.
	parts := []string{"config/manager/manager.yaml"}
	crds, _ := filepath.Glob("config/crd/bases/*.yaml")
	parts = append(append(parts, crds...), "config/rbac/role.yaml", "config/rbac/bindings.yaml")
	var want bytes.Buffer
	for i, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			want.WriteString("---\n")
		}
		want.Write(b)
	}
	got, err := os.ReadFile("infrastructure-components.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("infrastructure-components.yaml is not the join of config/ that make components writes; run make components")
	}
}
