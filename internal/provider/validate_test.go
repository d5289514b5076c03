package provider

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// validInputs are the inputs of a fixture set rooted at dir.
func validInputs(dir string) []string {
	return []string{filepath.Join(dir, "components.yaml"), filepath.Join(dir, "bootstrap-controlplane.yaml"),
		filepath.Join(dir, "metadata.yaml"), filepath.Join(dir, "chart")}
}

func validate(t *testing.T, opts Options, paths ...string) *Result {
	t.Helper()
	s, err := Load(paths, RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return Validate(s, opts)
}

func TestValidProvider(t *testing.T) {
	r := validate(t, Options{Registries: []string{"registry.acme.example"}}, validInputs("testdata/valid")...)
	for _, f := range r.Findings {
		t.Errorf("unexpected finding: %s:%d: %s [%s]", f.File, f.Line, f.Message, f.Rule)
	}
	var roles []string
	for _, res := range r.Resources {
		roles = append(roles, res.Kind+"="+string(res.Role))
	}
	want := "AcmeCluster=InfraCluster AcmeClusterTemplate=InfraClusterTemplate AcmeConfig=BootstrapConfig AcmeConfigTemplate=BootstrapConfigTemplate AcmeControlPlane=ControlPlane AcmeControlPlaneTemplate=ControlPlaneTemplate AcmeMachine=InfraMachine AcmeMachinePool=InfraMachinePool AcmeMachinePoolTemplate=InfraMachinePoolTemplate AcmeMachineTemplate=InfraMachineTemplate"
	slices.Sort(roles)
	if got := strings.Join(roles, " "); got != want {
		t.Errorf("resources:\n got %s\nwant %s", got, want)
	}
	if len(r.Variables) != 2 || r.Variables[0].Name != "ACME_INVENTORY_URL" || r.Variables[0].HasDefault || r.Variables[1].Default != "v0.1.0" {
		t.Errorf("variables: %+v", r.Variables)
	}
}

// TestRuleFixtures: testdata/rules/<ID> is testdata/valid with files
// replaced so that exactly one rule breaks; each must report its rule, at
// a line of a real file, and every rule has a fixture.
func TestRuleFixtures(t *testing.T) {
	dirs, err := os.ReadDir("testdata/rules")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, d := range dirs {
		rule := d.Name()
		covered[rule] = true
		t.Run(rule, func(t *testing.T) {
			dir := overlay(t, "testdata/valid", filepath.Join("testdata/rules", rule))
			opts := Options{}
			if rule == RuleRegistry {
				opts.Registries = []string{"registry.acme.example"}
			}
			r := validate(t, opts, validInputs(dir)...)
			var hit *findings.Finding
			for i, f := range r.Findings {
				if f.Rule == rule {
					hit = &r.Findings[i]
				}
			}
			if hit == nil {
				t.Fatalf("rule %s did not fire; findings: %+v", rule, r.Findings)
			}
			want, _ := Registry.Lookup(rule)
			if hit.Severity != want.Severity && rule != RuleKCMRole {
				t.Errorf("severity %s, want %s", hit.Severity, want.Severity)
			}
			if hit.File == "" || hit.Line <= 0 || hit.Message == "" || hit.Hint == "" {
				t.Errorf("finding without file:line, message or hint: %+v", *hit)
			}
			if _, err := os.Stat(hit.File); err != nil {
				t.Errorf("finding names a file that does not exist: %s", hit.File)
			}
		})
	}
	for _, r := range Registry.Rules() {
		if !covered[r.ID] && r.ID != RuleTemplateContract { // template validate --provider: template_test.go
			t.Errorf("rule %s has no fixture under testdata/rules", r.ID)
		}
	}
}

// overlay copies base into a temporary directory and the files of fix
// over it.
func overlay(t *testing.T, base, fix string) string {
	t.Helper()
	dir := t.TempDir()
	for _, src := range []string{base, fix} {
		err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			dst := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			return os.WriteFile(dst, data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadContract(t *testing.T) {
	for _, tc := range []struct {
		labels            map[string]string
		contract, version string
		malformed         int
	}{
		{map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1_v1beta2"}, "v1beta1", "v1beta2", 0},
		{map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1", "cluster.x-k8s.io/v1beta2": "v1beta2"}, "v1beta2", "v1beta2", 0},
		{map[string]string{"cluster.x-k8s.io/v1beta2": "", "cluster.x-k8s.io/v1beta1": "v1alpha1"}, "v1beta1", "v1alpha1", 0},
		{map[string]string{"cluster.x-k8s.io/v1beta2": "v1_v1beta3_v1alpha9"}, "v1beta2", "v1", 0},
		{map[string]string{"cluster.x-k8s.io/v1alpha4": "v1alpha4"}, "", "", 0},
		{map[string]string{"cluster.x-k8s.io/v1beta2": "v1alpha1_next"}, "v1beta2", "v1alpha1", 1},
	} {
		cl := readContract(tc.labels)
		if cl.Contract != tc.contract || cl.Version != tc.version || len(cl.Malformed) != tc.malformed {
			t.Errorf("readContract(%v) = %+v, want %s %s", tc.labels, cl, tc.contract, tc.version)
		}
	}
}

func TestCalculateCRDName(t *testing.T) {
	for kind, want := range map[string]string{
		"AWSCluster":               "awsclusters.g",
		"AWSClusterStaticIdentity": "awsclusterstaticidentities.g",
		"ProxmoxMachine":           "proxmoxmachines.g",
		"HetznerBareMetalHost":     "hetznerbaremetalhosts.g",
		"KubeadmConfig":            "kubeadmconfigs.g",
	} {
		if got := calculateCRDName("g", kind); got != want {
			t.Errorf("%s: %s, want %s", kind, got, want)
		}
	}
}

func TestRoleOf(t *testing.T) {
	for _, tc := range []struct {
		group, kind         string
		labelled, tmpl, pid bool
		want                Role
	}{
		{"infrastructure.cluster.x-k8s.io", "AWSCluster", true, true, false, RoleInfraCluster},
		{"infrastructure.cluster.x-k8s.io", "AWSClusterStaticIdentity", true, false, false, RoleNone},
		{"infrastructure.cluster.x-k8s.io", "PooledRemoteMachine", true, false, false, RoleNone},
		{"infrastructure.cluster.x-k8s.io", "AzureMachinePoolMachine", true, false, true, RoleInfraMachinePoolMachine},
		{"infrastructure.cluster.x-k8s.io", "AzureASOManagedControlPlane", true, false, false, RoleControlPlane},
		{"infrastructure.cluster.x-k8s.io", "ROSARoleConfig", true, false, false, RoleNone},
		{"bootstrap.cluster.x-k8s.io", "EKSConfig", true, true, false, RoleBootstrapConfig},
		{"k0smotron.io", "Cluster", false, false, false, RoleNone},
		{"infrastructure.acme.io", "AcmeMachine", false, true, true, RoleInfraMachine},
		{"acme.io", "AcmeMachine", false, true, true, RoleNone},
		{"vmware.infrastructure.cluster.x-k8s.io", "VSphereVM", true, false, false, RoleNone},
	} {
		if got := roleOf(tc.group, tc.kind, tc.labelled, tc.tmpl, tc.pid); got != tc.want {
			t.Errorf("roleOf(%s %s) = %q, want %q", tc.group, tc.kind, got, tc.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n data: [\n"), 0o644)
	notObj := filepath.Join(dir, "list.yaml")
	os.WriteFile(notObj, []byte("- a\n- b\n"), 0o644)
	for path, want := range map[string]string{
		bad:                           "bad.yaml:5: the YAML does not parse",
		notObj:                        "list.yaml:1: a document is not a Kubernetes object",
		filepath.Join(dir, "missing"): "missing: no such file or directory",
		dir + "/empty":                "no such file",
	} {
		_, err := Load([]string{path}, RenderOptions{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s) = %v, want %q", path, err, want)
		}
	}
}

// TestCheckFetchURL: the URL forms clusterctl's repository client reads
// (cluster-api cmd/clusterctl/client/repository), and ones it refuses.
func TestCheckFetchURL(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://github.com/acme/cluster-api-provider-acme/releases/v0.1.0/infrastructure-components.yaml":                   true,
		"https://github.com/acme/cluster-api-provider-acme/releases/latest/infrastructure-components.yaml":                   true,
		"https://github.com/telekom/cluster-api-ipam-provider-infoblox/releases/download/v0.1.0/ipam-components.yaml":        true, // kcm v1.11.4's infoblox template
		"https://gitlab.example.com/api/v4/projects/acme%2Fcapa/packages/generic/capa/v0.1.0/infrastructure-components.yaml": true,
		"file:///var/lib/providers/infrastructure-acme/v0.1.0/infrastructure-components.yaml":                                true,
		"https://github.com/acme/cluster-api-provider-acme/infrastructure-components.yaml":                                   false,
		"https://releases.acme.example/cluster-api-provider-acme/v0.1.0/infrastructure-components.yaml":                      false,
		"http://github.com/acme/cluster-api-provider-acme/releases/v0.1.0/infrastructure-components.yaml":                    false,
		"https://gitlab.example.com/api/v4/projects/acme/packages/npm/capa/v0.1.0/infrastructure-components.yaml":            false,
		"file://relative/infrastructure-components.yaml":                                                                     false,
		"oci://registry.acme.io/capi/acme-components":                                                                        false,
	} {
		if err := CheckFetchURL(u); (err == nil) != ok {
			t.Errorf("CheckFetchURL(%s) = %v, want ok %v", u, err, ok)
		}
	}
}
