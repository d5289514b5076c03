package upgrade

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// sharedTemplates is kcm v1.11.4's cluster templates beside the
// repository; tests using them skip when they are absent.
func sharedTemplates(t testing.TB) string {
	dir := filepath.Join("..", "..", "..", "shared", "kcm", "v1.11.4", "templates", "cluster")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/kcm/v1.11.4 is not beside the repository: skipping the checks on kcm's real templates")
	}
	return dir
}

// copyChart copies a chart folder into dir and applies edits (file →
// regexp → replacement) to the copy.
func copyChart(t testing.TB, src, dst string, edits map[string][2]string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if e, ok := edits[filepath.ToSlash(rel)]; ok {
			re := regexp.MustCompile(e[0])
			if !re.Match(data) {
				t.Fatalf("edit of %s: %q not found", rel, e[0])
			}
			data = re.ReplaceAll(data, []byte(e[1]))
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// realConfigs are the values the templates need to render (their
// templates fail without them): what a real ClusterDeployment sets.
var realConfigs = map[string]map[string]any{
	"aws-hosted-cp":       {"managementClusterName": "kcm"},
	"azure-hosted-cp":     {"vmSize": "Standard_A4_v2", "subscriptionID": "00000000-0000-0000-0000-000000000000"},
	"azure-standalone-cp": {"controlPlane": map[string]any{"vmSize": "Standard_A4_v2"}, "worker": map[string]any{"vmSize": "Standard_A4_v2"}, "subscriptionID": "00000000-0000-0000-0000-000000000000"},
	"gcp-gke":             {"project": "acme", "region": "europe-west1"},
}

// TestRealTemplatesUnchanged: every template kcm ships, checked against
// itself, has no hazard and no change: no false alarms on real charts.
func TestRealTemplatesUnchanged(t *testing.T) {
	dir := sharedTemplates(t)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			chart := filepath.Join(dir, e.Name())
			r, err := Predict(Input{From: Side{Chart: chart}, To: Side{Chart: chart}, Deployment: Deployment{Config: realConfigs[e.Name()]}})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range r.Findings {
				if f.Rule != ruleVersionUnknown {
					t.Errorf("finding on an unchanged template: %+v", f)
				}
			}
			if len(r.Objects)+len(r.Rollouts)+len(r.Impacts) > 0 {
				t.Errorf("changes on an unchanged template:\n%s", dump(r))
			}
		})
	}
}

// TestRealK0sPatchUpgrade bumps the k0s patch version of each k0s-based
// template kcm ships: the MachineDeployments roll, the standalone control
// planes upgrade in place, and the kubevirt templates, whose
// MachineDeployments set no version, leave their workers behind (the
// defect of kcm #1389).
func TestRealK0sPatchUpgrade(t *testing.T) {
	dir := sharedTemplates(t)
	for _, tc := range []struct {
		name    string
		hazards []string
	}{
		{"aws-standalone-cp", nil},
		{"aws-hosted-cp", nil},
		{"azure-standalone-cp", nil},
		{"gcp-standalone-cp", nil},
		{"openstack-standalone-cp", nil},
		{"vsphere-standalone-cp", nil},
		{"docker-hosted-cp", nil},
		{"remote-cluster", nil},
		{"kubevirt-standalone-cp", []string{ruleWorkersBehind}},
		{"kubevirt-hosted-cp", []string{ruleWorkersBehind}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(dir, tc.name)
			dst := t.TempDir()
			copyChart(t, src, dst, map[string][2]string{
				"Chart.yaml":  {`(?m)^version: .*$`, "version: 9.9.9"},
				"values.yaml": {`(?m)^(  version: v1\.\d+)\.\d+\+k0s\.\d+`, "${1}.99+k0s.0"},
			})
			r, err := Predict(Input{From: Side{Chart: src}, To: Side{Chart: dst}, Deployment: Deployment{Name: "dev-1", Namespace: "team-a", Config: realConfigs[tc.name]}})
			if err != nil {
				t.Fatal(err)
			}
			if got := rulesOf(r, findings.Error); !slices.Equal(got, tc.hazards) {
				t.Errorf("hazards %v, want %v\n%s", got, tc.hazards, dump(r))
			}
			if r.From.K8s.Version.Compare(r.To.K8s.Version) >= 0 {
				t.Errorf("versions %s → %s", r.From.K8s, r.To.K8s)
			}
		})
	}
}
