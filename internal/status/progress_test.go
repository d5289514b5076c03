package status

import (
	"slices"
	"testing"
	"time"
)

// The messages are Cluster API v1.13's, as a machine of CAPD's in-memory
// backend reported them during a KubeadmControlPlane rollout.
func TestCompact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Object is ready", "Object is ready"},
		{"* InfrastructureReady:\n  * VMProvisioned: WaitingForBootstrapData\n  * NodeProvisioned: WaitingForVMProvisioned\n* NodeHealthy: Waiting for DevMachine to report spec.providerID",
			"InfrastructureReady: VMProvisioned: WaitingForBootstrapData, NodeProvisioned: WaitingForVMProvisioned; NodeHealthy: Waiting for DevMachine to report spec.providerID"},
		{"* Deleting: Machine deletion in progress, stage: WaitingForInfrastructureDeletion\n* Control plane components: Machine is deleting",
			"Deleting: Machine deletion in progress, stage: WaitingForInfrastructureDeletion; Control plane components: Machine is deleting"},
		{"Helm upgrade failed:\nvalues don't meet the specifications", "Helm upgrade failed: values don't meet the specifications"},
		// Three levels, as a Cluster's WorkerMachinesReady aggregates them.
		{"* Machines dev-1-md-a, dev-1-md-b:\n  * BootstrapConfigReady:\n    * DataSecretAvailable: Waiting for Cluster control plane to be initialized\n    * CertificatesAvailable: Condition not yet reported\n  * InfrastructureReady:\n    * VMProvisioned: WaitingForControlPlaneInitialized",
			"Machines dev-1-md-a, dev-1-md-b: BootstrapConfigReady: DataSecretAvailable: Waiting for Cluster control plane to be initialized, CertificatesAvailable: Condition not yet reported, InfrastructureReady: VMProvisioned: WaitingForControlPlaneInitialized"},
	} {
		if got := Compact(tc.in); got != tc.want {
			t.Errorf("Compact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// Machines on their way are progress for up to Stuck, then a cause; a
// failing machine that is not on its way is a cause at once.
func TestProgressAndCauses(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	tree := func(machines ...*Node) *Node {
		return &Node{Kind: kindClusterDeployment, Name: "dev-1", Ready: "False", Children: []*Node{
			{Kind: kindCluster, Name: "dev-1", Ready: "False", Children: []*Node{
				{Kind: "KubeadmControlPlane", Name: "dev-1-cp", Role: "ControlPlane", Ready: "True", Children: machines},
			}},
		}}
	}
	provisioning := &Node{Kind: kindMachine, Name: "dev-1-cp-new", Ready: "False", Phase: "Provisioning", Created: ago(5 * time.Second),
		Message: "* InfrastructureReady:\n  * VMProvisioned: WaitingForStartupTimeout"}
	deleting := &Node{Kind: kindMachine, Name: "dev-1-cp-old", Ready: "False", Phase: "Deleting", Created: ago(time.Hour), Deleting: ago(3 * time.Second),
		Conditions: []Condition{{Type: "Deleting", Status: "True", Message: "Machine deletion in progress, stage: WaitingForInfrastructureDeletion"}}}
	stuck := &Node{Kind: kindMachine, Name: "dev-1-cp-stuck", Ready: "False", Phase: "Deleting", Created: ago(time.Hour), Deleting: ago(25 * time.Minute)}
	broken := &Node{Kind: kindMachine, Name: "dev-1-cp-bad", Ready: "False", Phase: "Running", Created: ago(time.Hour), Message: "* NodeHealthy: Node not ready"}
	for _, tc := range []struct {
		name             string
		root             *Node
		causes, progress []string
	}{
		{"rollout under way", tree(provisioning, deleting), nil, []string{
			"Machine dev-1-cp-new is provisioning: InfrastructureReady: VMProvisioned: WaitingForStartupTimeout",
			"Machine dev-1-cp-old is being deleted (Machine deletion in progress, stage: WaitingForInfrastructureDeletion)",
		}},
		{"deletion stuck", tree(stuck), []string{"Machine dev-1-cp-stuck has been deleting for 25m, longer than the 10m a machine normally takes"}, nil},
		{"machine failing", tree(provisioning, broken), []string{"Machine dev-1-cp-bad is not ready: NodeHealthy: Node not ready"},
			[]string{"Machine dev-1-cp-new is provisioning: InfrastructureReady: VMProvisioned: WaitingForStartupTimeout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, p := causes(tc.root, now)
			if !slices.Equal(c, tc.causes) {
				t.Errorf("causes %q, want %q", c, tc.causes)
			}
			if !slices.Equal(p, tc.progress) {
				t.Errorf("progress %q, want %q", p, tc.progress)
			}
		})
	}
}

// A k0smotron control plane says v1.34.1+k0s.0 where its machines may say
// v1.34.1: the same Kubernetes release, so no machine is behind.
func TestMachinesBehind(t *testing.T) {
	cp := &Node{Kind: "K0sControlPlane", Children: []*Node{
		{Kind: kindMachine, Name: "cp-0", Version: "v1.34.1", Count: 2},
		{Kind: kindMachine, Name: "cp-2", Version: "v1.34.1+k0s.0"},
		{Kind: kindMachine, Name: "cp-3", Version: "v1.33.4"},
	}}
	if got := machinesBehind(cp, "v1.34.1+k0s.0"); got != 1 {
		t.Errorf("behind %d, want 1", got)
	}
	if got := machinesBehind(cp, ""); got != 0 {
		t.Errorf("behind %d without a version, want 0", got)
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghijkl", 10, "abcdefg..."},
		{"abcdef→ghijkl", 10, "abcdef..."}, // never half a rune
	} {
		if got := clip(tc.in, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// kcm's HelmChartReady=False after its dry run of the chart with the
// config (the message is kcm v1.11.4's, as the real controller wrote it
// for a string where the schema wants an integer), and any other.
func TestHelmChartCauses(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ msg, want string }{
		{"failed to validate template with provided configuration: values don't meet the specifications of the schema(s) in the following chart(s):\nmem:\n- at '/worker/replicas': got string, want integer",
			"config rejected by the template: kcm's dry run of the chart with spec.config failed, so it left the HelmRelease alone: failed to validate template with provided configuration: values don't meet the specifications of the schema(s) in the following chart(s): mem: - at '/worker/replicas': got string, want integer"},
		{"failed to get HelmChart Artifact: not found", "chart not ready: failed to get HelmChart Artifact: not found"},
	} {
		root := &Node{Kind: kindClusterDeployment, Name: "dev-3", Ready: "False",
			Conditions: []Condition{{Type: "HelmChartReady", Status: "False", Reason: "Failed", Message: tc.msg}}}
		c, _ := causes(root, now)
		if len(c) == 0 || c[0] != tc.want {
			t.Errorf("causes %q\nwant %q", c, tc.want)
		}
	}
}
