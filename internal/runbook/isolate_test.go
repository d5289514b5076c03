package runbook

import (
	"testing"
)

// TestSharesCluster: a page that names a namespace of its own, or makes
// a cluster-wide object, in a block that is to run or a file it writes,
// says so at the line; one that works in the runbook's namespace, names
// the namespace from a variable, or only in a skipped block, does not;
// nor does a runbook of testscript blocks.
func TestSharesCluster(t *testing.T) {
	page := func(body string) string { return "---\nrun: shell\n---\n\n" + body }
	for _, tc := range []struct{ name, src, want string }{
		{"own namespace", page("```bash\nkubectl get pods\nkubectl -n \"$NS\" get cm\n```\n"), ""},
		{"default", page("```bash\nkubectl get pods -n default\n```\n"), ""},
		{"flag", page("```bash\nkubectl get pods\nkubectl get pods -n kcm-system\n```\n"), "it names the namespace kcm-system (p.md:7)"},
		{"long flag", page("```bash\nkubectl get pods --namespace=projectsveltos\n```\n"), "it names the namespace projectsveltos (p.md:6)"},
		{"heredoc", page("```bash\nkubectl apply -f - <<EOF\napiVersion: v1\nkind: ClusterRole\nEOF\n```\n"), "it makes a ClusterRole, which is cluster-wide (p.md:8)"},
		{"create ns", page("```bash\nkubectl create namespace demo\n```\n"), "it makes a namespace, which is cluster-wide (p.md:6)"},
		{"file", page("```yaml file=cm.yaml\nmetadata:\n  namespace: kcm-system\n```\n\n```bash\nkubectl apply -f cm.yaml\n```\n"), "its file cm.yaml names the namespace kcm-system (p.md:7)"},
		{"label ns", page("```bash\nkubectl label ns default team=a\n```\n"), "it runs kubectl label on ns, which are cluster-wide (p.md:6)"},
		{"delete crd", page("```bash\nkubectl --context kind-x delete crd/widgets.example.com\n```\n"), "it runs kubectl delete on crd, which are cluster-wide (p.md:6)"},
		{"taint", page("```bash\nkubectl taint nodes n1 k=v:NoSchedule\n```\n"), "it runs kubectl taint, which changes nodes, cluster-wide (p.md:6)"},
		{"read only", page("```bash\nkubectl get ns\nkubectl describe nodes\nkubectl label pods web tier=a\n```\n"), ""},
		{"skipped", page("```bash skip=\"needs AWS\"\nkubectl -n kcm-system get cm\n```\n"), ""},
		{"testscript", "```testscript\nexec kubectl -n kcm-system get cm\n```\n", ""},
	} {
		rb, err := Parse("p.md", []byte(tc.src))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := rb.SharesCluster(); got != tc.want {
			t.Errorf("%s: SharesCluster() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
