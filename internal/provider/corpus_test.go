package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// shared is the reference data beside the repository root (see
// ../shared/README.md); tests that need it skip without it.
func shared(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{"..", "..", "..", "shared"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("reference data %s is not there (a clone outside the kbook workspace): %v", p, err)
	}
	return p
}

// TestSharedProviders: the released CRDs of real providers pass with no
// error, and their contract resources are found.
func TestSharedProviders(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(shared(t, "providers"), "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no provider files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := validate(t, Options{}, f)
			for _, fd := range r.Findings {
				if fd.Severity == findings.Error {
					t.Errorf("false error: %s:%d: %s [%s]", fd.File, fd.Line, fd.Message, fd.Rule)
				}
			}
			if len(r.Resources) < 3 {
				t.Errorf("found %d contract resources: %+v", len(r.Resources), r.Resources)
			}
		})
	}
}

// TestSharedBareBases: config/crd/bases CRDs have no contract label; the
// finding says so and that kustomize adds it at release.
func TestSharedBareBases(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(shared(t, "crds", "capi"), "infrastructure.cluster.x-k8s.io_docker*.yaml"))
	if len(files) != 6 {
		t.Fatalf("want the 6 CAPD bases, got %v", files)
	}
	for _, f := range files {
		r := validate(t, Options{}, f)
		found := false
		for _, fd := range r.Findings {
			if fd.Rule == RuleContractLabel {
				found = true
				if !strings.Contains(fd.Message, "has no cluster.x-k8s.io/v1beta2 or cluster.x-k8s.io/v1beta1 label") || !strings.Contains(fd.Hint, "kustomize") || !strings.Contains(fd.Hint, "labels:") {
					t.Errorf("%s: %s / %s", f, fd.Message, fd.Hint)
				}
				if fd.Path != "metadata.labels" || fd.Line != 4 {
					t.Errorf("%s: position %d %s", f, fd.Line, fd.Path)
				}
			}
		}
		if !found {
			t.Errorf("%s: no %s finding: %+v", f, RuleContractLabel, r.Findings)
		}
	}
	// Together, the bases only lack their labels.
	r := validate(t, Options{}, files...)
	for _, fd := range r.Findings {
		if fd.Severity == findings.Error && fd.Rule != RuleContractLabel {
			t.Errorf("unexpected error on the bases together: %s [%s]", fd.Message, fd.Rule)
		}
	}
}

// TestSharedKCMProviderTemplates: the ProviderTemplate charts kcm ships
// pass, alone and with their provider's released CRDs (chart annotations
// agree with the CRD labels).
func TestSharedKCMProviderTemplates(t *testing.T) {
	charts := shared(t, "kcm", "v1.11.4", "templates", "provider")
	providers := shared(t, "providers")
	pairs := map[string][]string{
		"cluster-api-provider-docker":               {"capd.yaml"},
		"cluster-api-provider-aws":                  {"capa.yaml"},
		"cluster-api-provider-azure":                {"capz.yaml"},
		"cluster-api-provider-openstack":            {"capo.yaml"},
		"cluster-api-provider-vsphere":              {"capv.yaml"},
		"cluster-api-provider-k0sproject-k0smotron": {"k0smotron-bootstrap.yaml", "k0smotron-control-plane.yaml", "k0smotron-infrastructure.yaml"},
	}
	dirs, _ := os.ReadDir(charts)
	for _, d := range dirs {
		t.Run(d.Name(), func(t *testing.T) {
			inputs := [][]string{{filepath.Join(charts, d.Name())}}
			if crds, ok := pairs[d.Name()]; ok {
				in := []string{filepath.Join(charts, d.Name())}
				for _, c := range crds {
					in = append(in, filepath.Join(providers, c))
				}
				inputs = append(inputs, in)
			}
			for _, in := range inputs {
				r := validate(t, Options{}, in...)
				for _, fd := range r.Findings {
					if fd.Severity == findings.Error {
						t.Errorf("%v: false error: %s:%d: %s [%s]", in[1:], fd.File, fd.Line, fd.Message, fd.Rule)
					}
				}
			}
		})
	}
}
