package template

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/k0rdent/kbook/internal/policy"
	"github.com/k0rdent/kbook/internal/schema"
)

// Fixture charts live in testdata/charts/<RULE>-pass and <RULE>-fail. Each
// holds only what differs from testdata/charts/base: its files are copied
// over a copy of the base chart at test time. fixture.yaml (not part of the
// chart) says what the fixture is about in a comment and may set:
//
//	delete: [files]   base files to remove
//	config: FILE      a file of the fixture used as ChartOptions.Config
//	policy: FILE      a policy file of the fixture (ChartOptions.Policies)
//	registries: [..]  ChartOptions.Registries
//	crds: true        validate with the CAPI CRDs of ../shared/crds/capi
//	                  (the test is skipped when they are absent)
//	crdFiles: [files] validate with CRD files of the fixture itself
//	dependency: DIR   the base chart goes to DIR (charts/docker-kubeadm)
//	                  as a dependency of the fixture's own Chart.yaml: a
//	                  wrapper chart, as template init --extend makes
type fixture struct {
	Delete     []string `json:"delete"`
	Config     string   `json:"config"`
	Policy     string   `json:"policy"`
	Registries []string `json:"registries"`
	CRDs       bool     `json:"crds"`
	CRDFiles   []string `json:"crdFiles"`
	Dependency string   `json:"dependency"`
}

const (
	chartsDir = "testdata/charts"
	// The CAPI CRDs beside the repository (see shared/README.md).
	capiCRDs = "../../../shared/crds/capi"
)

var (
	crdsOnce      sync.Once
	crdsValidator *schema.Validator
	crdsErr       error
)

// capiValidator loads the shared CAPI CRDs once, or skips the test when
// they are absent.
func capiValidator(t testing.TB) *schema.Validator {
	t.Helper()
	if _, err := os.Stat(capiCRDs); err != nil {
		t.Skipf("CAPI CRDs not found at %s (shared/ sits beside the repository on development machines and in CI): %v", capiCRDs, err)
	}
	crdsOnce.Do(func() { crdsValidator, crdsErr = schema.FromFiles(capiCRDs) })
	if crdsErr != nil {
		t.Fatalf("load CRDs: %v", crdsErr)
	}
	return crdsValidator
}

// setupFixture builds the fixture chart in a temporary directory and
// returns its path and the options it asks for.
func setupFixture(t testing.TB, name string) (string, ChartOptions) {
	t.Helper()
	src := filepath.Join(chartsDir, name)
	var fx fixture
	if data, err := os.ReadFile(filepath.Join(src, "fixture.yaml")); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	} else if err := yaml.UnmarshalStrict(data, &fx); err != nil {
		t.Fatalf("fixture %s: fixture.yaml: %v", name, err)
	}
	dir := filepath.Join(t.TempDir(), "docker-kubeadm")
	copyTree(t, filepath.Join(chartsDir, "base"), filepath.Join(dir, fx.Dependency), nil)
	skip := append([]string{"fixture.yaml", fx.Config, fx.Policy}, fx.CRDFiles...)
	copyTree(t, src, dir, skip)
	for _, f := range fx.Delete {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatalf("fixture %s: delete: %v", name, err)
		}
	}
	opts := ChartOptions{Registries: fx.Registries}
	if fx.Config != "" {
		opts.Config = filepath.Join(src, fx.Config)
	}
	if fx.Policy != "" {
		p, err := policy.Load(filepath.Join(src, fx.Policy))
		if err != nil {
			t.Fatalf("fixture %s: %v", name, err)
		}
		opts.Policies = []*policy.Policy{p}
	}
	if fx.CRDs {
		opts.Schemas = capiValidator(t)
	}
	if len(fx.CRDFiles) > 0 {
		var files []string
		for _, f := range fx.CRDFiles {
			files = append(files, filepath.Join(src, f))
		}
		v, err := schema.FromFiles(files...)
		if err != nil {
			t.Fatalf("fixture %s: %v", name, err)
		}
		opts.Schemas = v
	}
	return dir, opts
}

// copyTree copies the files of src into dst, but for the names in skip
// (relative to src).
func copyTree(t testing.TB, src, dst string, skip []string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if slices.Contains(skip, filepath.ToSlash(rel)) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
