package upgrade

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
)

func charts(name string) string { return filepath.Join("testdata", "charts", name) }

func check(t *testing.T, from, to, config string, mod func(*Input)) *Report {
	t.Helper()
	in := Input{From: Side{Chart: charts(from)}, To: Side{Chart: charts(to)}}
	if config != "" {
		cfg, err := LoadConfig(filepath.Join("testdata", "configs", config))
		if err != nil {
			t.Fatal(err)
		}
		in.Deployment, in.Services, in.Exposure = cfg.Deployment, cfg.Services, cfg.Exposure
	}
	if mod != nil {
		mod(&in)
	}
	r, err := Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func rulesOf(r *Report, sev findings.Severity) []string {
	var out []string
	for _, f := range r.Findings {
		if (sev == "" || f.Severity == sev) && !slices.Contains(out, f.Rule) {
			out = append(out, f.Rule)
		}
	}
	slices.Sort(out)
	return out
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, config string
		mod                    func(*Input)
		hazards                []string // rules of severity error
		others                 []string // warnings and info
		rollouts               []string // objects rolled
		impacts                []string
		message                string // in some finding
	}{
		{name: "patch upgrade: workers roll, control plane in place", from: "base", to: "patch",
			rollouts: []string{"MachineDeployment dev-1-md (cluster.x-k8s.io)"},
			impacts:  []string{"K0sControlPlane dev-1-cp (controlplane.cluster.x-k8s.io)"}},
		{name: "minor upgrade with a config", from: "base", to: "minor", config: "custom-image.yaml",
			rollouts: []string{"MachineDeployment dev-1-md (cluster.x-k8s.io)"},
			impacts:  []string{"K0sControlPlane dev-1-cp (controlplane.cluster.x-k8s.io)"}},
		{name: "a minor version skipped", from: "base", to: "skip", hazards: []string{ruleK8sSkip},
			rollouts: []string{"MachineDeployment dev-1-md (cluster.x-k8s.io)"},
			impacts:  []string{"K0sControlPlane dev-1-cp (controlplane.cluster.x-k8s.io)"},
			message:  "Kubernetes v1.31.5 to v1.33.1 skips 1 minor version(s)"},
		{name: "downgrade", from: "base", to: "downgrade", hazards: []string{ruleK8sDowngrade, ruleSkew},
			rollouts: []string{"MachineDeployment dev-1-md (cluster.x-k8s.io)"},
			impacts:  []string{"K0sControlPlane dev-1-cp (controlplane.cluster.x-k8s.io)"}},
		{name: "schema break: a renamed value and a new required one", from: "base", to: "schema", config: "custom-image.yaml",
			// The default of the renamed value replaces the config's image,
			// which changes the immutable worker machine template.
			hazards: []string{ruleConfigRejected, ruleNewRequired, ruleImmutable},
			message: "worker.image: not allowed: the schema does not declare it and forbids other keys: acme-k0s-1-2-0 rejects the config, acme-k0s-1-0-0 accepted it; new in acme-k0s-1-2-0: worker.machineImage (renamed?)"},
		{name: "schema break without a config: only the new required value", from: "base", to: "schema",
			hazards: []string{ruleNewRequired}, message: "region is required by acme-k0s-1-2-0 and has no default"},
		{name: "a setting silently ignored", from: "base", to: "ignored", config: "extra-label.yaml",
			hazards: []string{ruleConfigIgnored}, message: "worker.extraLabel is set in the config and used by acme-k0s-1-0-0, but acme-k0s-1-3-0 neither declares nor reads it"},
		{name: "immutable machine template", from: "base", to: "immutable", hazards: []string{ruleImmutable},
			message: "DockerMachineTemplate dev-1-cp-mt changes its spec under the same name (spec.template.spec.extraMounts)"},
		{name: "workers left behind (kcm #1389)", from: "noversion-base", to: "noversion", hazards: []string{ruleWorkersBehind},
			impacts: []string{"K0sControlPlane dev-1-cp (controlplane.cluster.x-k8s.io)"},
			message: "MachineDeployment dev-1-md sets no spec.template.spec.version: the control plane moves from v1.31.5 to v1.31.7, but CAPI does not roll the workers"},
		{name: "MachineDeployment removed", from: "base", to: "noworkers", hazards: []string{ruleDeletes},
			message: "acme-k0s-1-6-0 no longer renders the MachineDeployment dev-1-md"},
		{name: "chart renamed", from: "base", to: "renamed", hazards: []string{ruleChartRenamed}},
		{name: "Recreate strategy rolls the control plane", from: "base", to: "recreate",
			rollouts: []string{"K0sControlPlane dev-1-cp (controlplane.cluster.x-k8s.io)", "MachineDeployment dev-1-md (cluster.x-k8s.io)"}},
		{name: "service constraint: kcm cannot see it, kbook can", from: "base", to: "minor", config: "services.yaml",
			hazards:  []string{ruleServiceK8s},
			rollouts: []string{"MachineDeployment dev-1-md (cluster.x-k8s.io)"},
			impacts:  []string{"K0sControlPlane dev-1-cp (controlplane.cluster.x-k8s.io)"},
			message:  "service ingress-nginx-4-11-0 requires Kubernetes >=1.29.0 <1.32.0, and the cluster would run v1.32.2 after the upgrade (chart default k0s.version); kcm does not check it"},
		{name: "service constraint: kcm's check on a declared version", from: "base", to: "declared", config: "services.yaml",
			hazards:  []string{ruleServiceKCM},
			rollouts: []string{"MachineDeployment dev-1-md (cluster.x-k8s.io)"},
			impacts:  []string{"K0sControlPlane dev-1-cp (controlplane.cluster.x-k8s.io)"}},
		{name: "provider not exposed by the Management", from: "base", to: "provider", config: "services.yaml",
			hazards: []string{ruleProviders},
			others:  []string{ruleProviderChange},
			message: "one or more required providers are not deployed yet: [infrastructure-aws]"},
		{name: "pinned minor: a patch upgrade is allowed", from: "base", to: "patch", config: "pinned.yaml",
			rollouts: []string{"MachineDeployment dev-1-md (cluster.x-k8s.io)"},
			impacts:  []string{"K0sControlPlane dev-1-cp (controlplane.cluster.x-k8s.io)"}},
		{name: "pinned minor: a minor upgrade is refused", from: "base", to: "minor", config: "pinned.yaml",
			hazards:  []string{rulePinned},
			rollouts: []string{"MachineDeployment dev-1-md (cluster.x-k8s.io)"},
			impacts:  []string{"K0sControlPlane dev-1-cp (controlplane.cluster.x-k8s.io)"},
			message:  "the deployment is pinned to Kubernetes v1.31.x"},
		{name: "pinned minor: --allow-k8s-change", from: "base", to: "minor", config: "pinned.yaml",
			mod:      func(in *Input) { in.AllowK8sChange = true },
			others:   []string{rulePinAllowed},
			rollouts: []string{"MachineDeployment dev-1-md (cluster.x-k8s.io)"},
			impacts:  []string{"K0sControlPlane dev-1-cp (controlplane.cluster.x-k8s.io)"}},
		{name: "pinned through the config: the template's default does not apply", from: "base", to: "minor", config: "pinned-by-config.yaml"},
		{name: "target does not render", from: "base", to: "broken", hazards: []string{ruleRenderNew},
			message: "acme-k0s 1.0.2: set worker.machineImage"},
		{name: "live: not in availableUpgrades, template invalid", from: "base", to: "patch",
			mod: func(in *Input) {
				in.Deployment.Live = true
				in.Deployment.AvailableUpgrades = []string{"acme-k0s-1-1-0"}
				in.To.Status = &TemplateStatus{Valid: false, ValidationError: "failed to load chart"}
			},
			hazards:  []string{ruleNotAvailable, ruleTemplateInvalid},
			rollouts: []string{"MachineDeployment dev-1-md (cluster.x-k8s.io)"},
			impacts:  []string{"K0sControlPlane dev-1-cp (controlplane.cluster.x-k8s.io)"},
			message:  "acme-k0s-1-0-1 is not in the deployment's status.availableUpgrades (acme-k0s-1-1-0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mod := tc.mod
			r := check(t, tc.from, tc.to, tc.config, func(in *Input) {
				if in.Deployment.Name == "" {
					in.Deployment.Name, in.Deployment.Namespace = "dev-1", "team-a"
				}
				if mod != nil {
					mod(in)
				}
			})
			if got := rulesOf(r, findings.Error); !slices.Equal(got, tc.hazards) {
				t.Errorf("hazards %v, want %v\n%s", got, tc.hazards, dump(r))
			}
			var others []string
			for _, f := range r.Findings {
				if f.Severity != findings.Error && !slices.Contains(others, f.Rule) {
					others = append(others, f.Rule)
				}
			}
			slices.Sort(others)
			if !slices.Equal(others, tc.others) {
				t.Errorf("warnings and info %v, want %v\n%s", others, tc.others, dump(r))
			}
			var rolled, impacted []string
			for _, ro := range r.Rollouts {
				rolled = append(rolled, ro.Object)
			}
			for _, im := range r.Impacts {
				impacted = append(impacted, im.Object)
			}
			if !slices.Equal(rolled, tc.rollouts) {
				t.Errorf("rollouts %v, want %v\n%s", rolled, tc.rollouts, dump(r))
			}
			if !slices.Equal(impacted, tc.impacts) {
				t.Errorf("impacts %v, want %v\n%s", impacted, tc.impacts, dump(r))
			}
			if tc.message != "" && !strings.Contains(dump(r), tc.message) {
				t.Errorf("no finding says %q\n%s", tc.message, dump(r))
			}
		})
	}
}

func dump(r *Report) string {
	var sb strings.Builder
	WriteText(&sb, r)
	return sb.String()
}

func TestEffectiveVersions(t *testing.T) {
	r := check(t, "base", "minor", "pinned-by-config.yaml", nil)
	if got := r.From.K8s.String() + " | " + r.To.K8s.String(); got != "v1.31.5 (config k0s.version) | v1.31.5 (config k0s.version)" {
		t.Errorf("versions %s", got)
	}
	r = check(t, "base", "declared", "", nil)
	if got := r.To.K8s.String(); got != "v1.32.2 (annotation k0rdent.mirantis.com/k8s-version)" {
		t.Errorf("declared %s", got)
	}
}

func TestKCMVerdict(t *testing.T) {
	r := check(t, "base", "declared", "services.yaml", nil)
	if r.KCM.Accepts || r.KCM.Checked {
		t.Errorf("kcm %+v", r.KCM)
	}
	want := "failed to validate k8s compatibility: k8s version v1.32.2 of the ClusterTemplate team-a/acme-k0s-1-1-0 does not satisfy k8s constraint >=1.29.0 <1.32.0 from the ServiceTemplate team-a/ingress-nginx-4-11-0 referred in the ClusterDeployment team-a/dev-1"
	if len(r.KCM.Says) != 1 || r.KCM.Says[0] != want {
		t.Errorf("kcm says %q\nwant %q", r.KCM.Says, want)
	}
	r = check(t, "base", "patch", "", func(in *Input) {
		in.Deployment.Live = true
		in.Deployment.AvailableUpgrades = []string{"acme-k0s-1-0-1"}
		in.To.Status = &TemplateStatus{Valid: true}
		in.Exposure = &Exposure{Parent: "Management kcm", Providers: []string{"bootstrap-k0sproject-k0smotron", "control-plane-k0sproject-k0smotron", "infrastructure-docker"}}
	})
	if !r.KCM.Accepts || !r.KCM.Checked || r.Hazards() != 0 {
		t.Errorf("kcm %+v\n%s", r.KCM, dump(r))
	}
}

func TestLoadConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, data, err string }{
		{"list.yaml", "- a\n- b\n", "list.yaml:1: not a map"},
		{"bad.yaml", "a: [\n", "bad.yaml:1: did not find expected node content"},
		{"two.yaml", "a: 1\n---\nb: 2\n", "two.yaml:3: a second set of values"},
		{"pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n", "pod.yaml:1: v1 Pod: kbook reads a ClusterDeployment"},
		{"cfg.yaml", "apiVersion: k0rdent.mirantis.com/v1beta1\nkind: ClusterDeployment\nmetadata: {name: x}\nspec:\n  config: [1]\n", "cfg.yaml:5: spec.config: want a map of values"},
		{"st.yaml", "apiVersion: k0rdent.mirantis.com/v1beta1\nkind: ServiceTemplate\nmetadata: {}\n", "st.yaml:1: ServiceTemplate without metadata.name"},
	} {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, []byte(tc.data), 0o644)
		if _, err := LoadConfig(p); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
}

func TestParsePin(t *testing.T) {
	cur := mustVersion(t, "v1.31.5")
	for _, tc := range []struct{ value, allows, err string }{
		{"true", "v1.31.5", ""},
		{"v1.32", "v1.32.x", ""},
		{"1.32.x", "v1.32.x", ""},
		{"v1.32.4", "v1.32.4", ""},
		{"soon", "", "want true, a minor version"},
	} {
		pin, _, err := ParsePin(tc.value, cur)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v", tc.value, err)
			}
			continue
		}
		if err != nil || pin.Allows != tc.allows {
			t.Errorf("%q: %+v %v, want %s", tc.value, pin, err, tc.allows)
		}
	}
}

// Workers roll after the control plane when it changes version (CAPI's
// MachineSet preflight checks), with CAPI's default strategy spelled out.
func TestRolloutOrder(t *testing.T) {
	r := check(t, "base", "recreate", "", nil)
	if len(r.Rollouts) != 2 {
		t.Fatalf("rollouts %v\n%s", r.Rollouts, dump(r))
	}
	cp, md := r.Rollouts[0], r.Rollouts[1]
	if cp.After != "" {
		t.Errorf("control plane waits for %q", cp.After)
	}
	if want := "K0sControlPlane render-test-cp is at v1.32.2+k0s.0 (CAPI's MachineSet preflight checks hold new machines until then)"; md.After != want {
		t.Errorf("workers after %q, want %q", md.After, want)
	}
	if want := "RollingUpdate maxSurge 1 maxUnavailable 0 (a new machine before an old one goes)"; md.Strategy != want {
		t.Errorf("strategy %q, want %q", md.Strategy, want)
	}
}

func TestSkipsPreflight(t *testing.T) {
	for _, tc := range []struct {
		annotation string
		want       bool
	}{
		{"", false},
		{"All", true},
		{"ControlPlaneIsStable", false},
		{"KubernetesVersionSkew, ControlPlaneIsStable", true},
	} {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		if tc.annotation != "" {
			u.SetAnnotations(map[string]string{k0rdent.SkipPreflightChecksAnnotation: tc.annotation})
		}
		if got := skipsPreflight(u); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.annotation, got, tc.want)
		}
	}
}

// The providers the target needs, against what the Management in the
// config exposes, one line each.
func TestProvidersReport(t *testing.T) {
	r := check(t, "base", "provider", "services.yaml", nil)
	if r.Providers == nil {
		t.Fatalf("no providers report\n%s", dump(r))
	}
	var got []string
	for _, n := range r.Providers.Needed {
		got = append(got, describeNeed(n))
	}
	want := []string{
		"bootstrap-k0sproject-k0smotron v1beta2: exposed",
		"control-plane-k0sproject-k0smotron v1beta2: exposed, offers v1beta1 v1beta2",
		"infrastructure-aws v1beta2: not exposed",
	}
	if r.Providers.Parent != "Management kcm" || !slices.Equal(got, want) {
		t.Errorf("%s: %q, want %q", r.Providers.Parent, got, want)
	}
	if r := check(t, "base", "provider", "", nil); r.Providers != nil {
		t.Errorf("offline without a Management: %+v", r.Providers)
	}
}

func TestDescribeNeed(t *testing.T) {
	n := ProviderNeed{Name: "infrastructure-docker", Contract: "v1beta2", Exposed: true, Offered: []string{"v1beta1"}, Satisfied: false}
	if got, want := describeNeed(n), "infrastructure-docker v1beta2: exposed, but offers only v1beta1"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
