package target

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/runbook"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

func TestCreated(t *testing.T) {
	gvr := func(group, res string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: group, Version: "v1", Resource: res}
	}
	obj := func(uid, group, res, ns, name string) object {
		return object{GVR: gvr(group, res), Namespace: ns, Name: name, UID: types.UID(uid)}
	}
	before := map[types.UID]object{
		"1": obj("1", "", "namespaces", "", "default"),
		"2": obj("2", "", "configmaps", "default", "kept"),
	}
	after := map[types.UID]object{}
	for k, v := range before {
		after[k] = v
	}
	for _, o := range []object{
		obj("3", "", "configmaps", "default", "new-in-default"),
		obj("4", "", "namespaces", "", "other"),
		obj("5", "", "configmaps", "other", "goes-with-other"),
		obj("6", "rbac.authorization.k8s.io", "clusterroles", "", "foo"),
		obj("7", "apiextensions.k8s.io", "customresourcedefinitions", "", "widgets.example.com"),
		obj("8", "", "configmaps", "kb-run-1", "own-namespace"),
		obj("9", "", "namespaces", "", "kb-run-1"),
	} {
		after[o.UID] = o
	}
	var got []string
	for _, o := range created(before, after, map[string]bool{"kb-run-1": true}) {
		got = append(got, o.String())
	}
	want := "configmaps/new-in-default -n default; clusterroles.rbac.authorization.k8s.io/foo; namespaces/other; customresourcedefinitions.apiextensions.k8s.io/widgets.example.com"
	if strings.Join(got, "; ") != want {
		t.Errorf("created =\n%s\nwant\n%s", strings.Join(got, "; "), want)
	}
}

func TestNamespaceFor(t *testing.T) {
	tests := []struct{ path, prefix string }{
		{"runbooks/k0rdent-objects.md", "kb-k0rdent-objects-"},
		{"runbooks/Create_Template.MD", "kb-create-template-"},
		{"x/" + strings.Repeat("very-long-name", 10) + ".md", "kb-very-long-namevery-long-namevery-long-na-"},
	}
	for _, tc := range tests {
		ns := namespaceFor(tc.path)
		if !strings.HasPrefix(ns, tc.prefix) || len(ns) > 63 || len(ns) != len(tc.prefix)+6 {
			t.Errorf("namespaceFor(%q) = %q, want %q + 6 hex digits", tc.path, ns, tc.prefix)
		}
	}
	if a, b := namespaceFor("a.md"), namespaceFor("a.md"); a == b {
		t.Errorf("two runs of a.md share namespace %s", a)
	}
}

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	kc := unreachableKubeconfig(t)
	tests := []struct {
		name string
		o    cluster.Options
		want string
	}{
		{"unknown backend", cluster.Options{Backend: "minikube"}, `unknown cluster backend "minikube" (want local, kind, kubeconfig)`},
		{"missing CRDs", cluster.Options{Backend: cluster.Local, CRDs: []string{filepath.Join(dir, "nope")}}, "CRDs: " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{"missing kubeconfig", cluster.Options{Backend: cluster.Kubeconfig, Kubeconfig: filepath.Join(dir, "missing")}, "load kubeconfig"},
		{"unknown context", cluster.Options{Backend: cluster.Kubeconfig, Kubeconfig: kc, Context: "prod"}, `kubeconfig ` + kc + ` has no context "prod"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(t.Context(), tc.o)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error = %v\nwant prefix %q", err, tc.want)
			}
		})
	}
	// A good kubeconfig makes a target without connecting; the ID names the server.
	tg, err := New(t.Context(), cluster.Options{Backend: cluster.Kubeconfig, Kubeconfig: kc})
	if err != nil || tg.ID() != "kubeconfig ctx https://127.0.0.1:1" {
		t.Fatalf("target %v, %v", tg, err)
	}
	// Connecting fails clearly.
	if _, err := cluster.Up(t.Context(), cluster.Options{Backend: cluster.Kubeconfig, Kubeconfig: kc}); err == nil || !strings.Contains(err.Error(), "cannot reach the API server at https://127.0.0.1:1") {
		t.Errorf("Up error = %v", err)
	}
}

func TestNeeds(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"```testscript\nexec echo\n```\n", false},
		{"---\nrequires: [exec:kubectl]\n---\n```testscript\nexec kubectl version --client\n```\n", false},
		{"---\nrequires: [cluster]\n---\n```testscript\nexec echo\n```\n", true},
		{"---\nrequires: [\"api:clusters.cluster.x-k8s.io\"]\n---\n```testscript\nexec echo\n```\n", true},
		{"---\ncrds: [crds]\n---\n```testscript\nexec echo\n```\n", true},
		{"```testscript\n[k0rdent] exec echo\n```\n", true},
		{"```testscript\n[!kind] skip\n```\n", true},
		{"```testscript\n! assert x.yaml\n```\n", true},
		{"```testscript\nawait --for=create ns/x\n```\n", true},
		{"```testscript\nexec echo await\n```\n", false},
		// A page's shell blocks need the cluster only when they may run.
		{"---\nrun: shell\n---\n```bash\nkubectl get pods\n```\n", true},
		{"---\nrun: shell\n---\n```bash skip=\"needs EKS\"\nkubectl get nodes\n```\n", false},
		{"---\nrun: shell\n---\n```bash provided=\"the run's cluster\"\nhelm install kcm x\n```\n", false},
		{"---\nrun: shell\n---\n```bash\nkbook-no-such-cloud-cli get-kubeconfig | kubectl apply -f -\n```\n", false},
		{"---\nrun: shell\n---\n```bash skip=\"needs AWS\"\naws eks get-token > token\n```\n\n```bash\nkubectl --token \"$(cat token)\" get pods\n```\n", false},
		{"---\nrun: shell\n---\n```bash skip=\"needs AWS\"\nexport KBOOK_NO_SUCH_T=$(aws eks get-token)\n```\n\n```bash\nkubectl --token \"$KBOOK_NO_SUCH_T\" get pods\n```\n", false},
		// ... unless the run's environment has it.
		{"---\nrun: shell\n---\n```bash skip=\"needs AWS\"\nexport PATH=$(aws path)\n```\n\n```bash\necho \"$PATH\"; kubectl get pods\n```\n", true},
		{"---\nrun: shell\n---\n```bash skip=\"needs AWS\"\nk() { aws eks get-token; }\n```\n\n```bash\nk | kubectl apply -f -\n```\n", false},
		{"---\nrun: shell\n---\n```bash\ncd /tmp\nkubectl get pods\n```\n", true},
	}
	for _, tc := range tests {
		rb, err := runbook.Parse("x.md", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := Needs(rb); got != tc.want {
			t.Errorf("Needs(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

// TestStartFailureFails: a cluster that cannot be reached is not a reason
// to skip a runbook that requires it (the run would pass as "all
// skipped"): the conditions hold and Prepare fails with the start error.
func TestStartFailureFails(t *testing.T) {
	kc := unreachableKubeconfig(t)
	tg, err := New(t.Context(), cluster.Options{Backend: cluster.Kubeconfig, Kubeconfig: kc})
	if err != nil {
		t.Fatal(err)
	}
	conds := tg.Conditions()
	for _, c := range []struct{ name, arg string }{{"kcm", ""}, {"k0rdent", ""}, {"api:", "pods"}} {
		if ok, why := conds[c.name](c.arg); !ok {
			t.Errorf("condition %s%s = false (%s), want true so that Prepare reports the failure", c.name, c.arg, why)
		}
	}
	rb := &runbook.Runbook{Path: "k.md", Meta: runbook.Meta{Requires: []string{"kcm"}}}
	if _, err := tg.Prepare(t.Context(), rb, nil); err == nil || !strings.Contains(err.Error(), "cannot reach the API server") {
		t.Errorf("Prepare error = %v, want the start error", err)
	}
}

// unreachableKubeconfig writes a kubeconfig whose server (context "ctx")
// refuses connections.
func unreachableKubeconfig(t *testing.T) string {
	t.Helper()
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: abcd}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return kc
}
