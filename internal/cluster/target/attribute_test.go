package target

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/gobuild"
	"github.com/k0rdent/kbook/internal/runbook"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func TestAttribution(t *testing.T) {
	rb, err := runbook.Parse("x.md", []byte("---\nrequires: [cluster]\n---\n"+
		"```sh file=install.sh\nhelm install x ./chart\n```\n\n"+
		"```testscript\nexec sh install.sh\nexec acmectl setup\nexec echo kbookish\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	var a attribution
	a.add("kb-x-0a1b2c", programsOf(rb))
	for _, tc := range []struct {
		managers []string
		want     bool
	}{
		{[]string{"helm"}, true},
		{[]string{"Helm"}, true}, // Helm 3's user agent
		{[]string{"acmectl"}, true},
		{[]string{"acmectl-apply"}, true},
		{[]string{"kube-controller-manager", "sh"}, true},
		{[]string{"kubectl-create"}, false}, // the runbook runs no kubectl
		{[]string{"kbook"}, false},          // "kbookish" is no kbook
		{[]string{"helmfile"}, false},
		{nil, false},
	} {
		if got := a.byManager(tc.managers); got != tc.want {
			t.Errorf("byManager(%q) = %v, want %v", tc.managers, got, tc.want)
		}
	}
	// The pattern is namespaceFor's names, whatever the runbook's.
	for _, path := range []string{"x.md", "runbooks/Some Weird_Name.md", "docs/" + strings.Repeat("long-", 12) + "page.md"} {
		if ns := namespaceFor(path); !runbookNamespace.MatchString(ns) {
			t.Errorf("namespaceFor(%q) = %s, which runbookNamespace does not match", path, ns)
		}
	}
	nsGVR := corev1.SchemeGroupVersion.WithResource("namespaces")
	cmGVR := corev1.SchemeGroupVersion.WithResource("configmaps")
	for _, tc := range []struct {
		o    object
		want bool
	}{
		{object{GVR: nsGVR, Name: "kb-proprietary-provider-31d4c9"}, true},
		{object{GVR: cmGVR, Namespace: "kb-proprietary-provider-31d4c9", Name: "c"}, true},
		{object{GVR: nsGVR, Name: "kb-x-0a1b2c"}, false}, // this runbook's
		{object{GVR: cmGVR, Namespace: "kb-x-0a1b2c", Name: "c"}, false},
		{object{GVR: nsGVR, Name: "team-a"}, false},
		{object{GVR: cmGVR, Namespace: "default", Name: "c"}, false},
		{object{GVR: crdGVR.GroupVersion().WithResource("clusterroles"), Name: "kb-x-0a1b2d"}, false},
	} {
		if got := a.othersRunbook(tc.o); got != tc.want {
			t.Errorf("othersRunbook(%s) = %v, want %v", tc.o, got, tc.want)
		}
	}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{`{"subjects":[{"kind":"ServiceAccount","namespace":"kb-x-0a1b2c"}]}`, true},
		{`{"annotations":{"meta.helm.sh/release-namespace":"kb-x-0a1b2c"}}`, true},
		{`{"user":"system:serviceaccount:kb-x-0a1b2c:default"}`, true},
		{`{"namespace":"kb-x-0a1b2c9"}`, false},
		{`{"namespace":"old-kb-x-0a1b2c"}`, false},
		{`{"namespace":"default"}`, false},
	} {
		if got := a.names(tc.text); got != tc.want {
			t.Errorf("names(%s) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestLeftMessage(t *testing.T) {
	var left []object
	for i := range 12 {
		left = append(left, object{GVR: crdGVR.GroupVersion().WithResource("clusterroles"), Name: fmt.Sprintf("r%02d", i)})
	}
	got := leftMessage(left[:2], "runbooks/a.md")
	want := "runbooks/a.md: left 2 objects created outside its namespace during the runbook: clusterroles.apiextensions.k8s.io/r00, clusterroles.apiextensions.k8s.io/r01; kbook deletes on a shared cluster only what it can attribute to the runbook (naming its namespace, or written by a program it runs)"
	if got != want {
		t.Errorf("leftMessage =\n%s\nwant\n%s", got, want)
	}
	if got := leftMessage(left, ""); !strings.HasPrefix(got, "the run: left 12 objects created outside the runbooks' namespaces during the run: ") || !strings.Contains(got, "/r09, and 2 more;") {
		t.Errorf("leftMessage of 12 = %s", got)
	}
}

// sharedObjects creates, as the runbook's kubectl or as someone else,
// what a runbook on a shared cluster finds new when it ends; it returns
// the names of the ClusterRoles kbook must delete and of those it must
// leave.
func sharedObjects(t *testing.T, ctx context.Context, cs kubernetes.Interface, ns, prefix string) (deleted, left []string) {
	t.Helper()
	role := func(name, manager string) {
		t.Helper()
		// With a rule: the API server keeps no managedFields entry of a
		// writer that set no field.
		r := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}
		_, err := cs.RbacV1().ClusterRoles().Create(ctx, r, metav1.CreateOptions{FieldManager: manager})
		if err != nil {
			t.Fatal(err)
		}
	}
	mine, other, another := prefix+"-kubectl", prefix+"-other", prefix+"-kbook"
	role(mine, "kubectl-create") // the runbook's kubectl
	role(other, "")              // the test binary: target.test
	role(another, "kbook")       // another kbook on the same cluster
	// A binding for the runbook's service account, by a controller.
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: prefix + "-binding"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: mine},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: ns}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{FieldManager: "some-controller"}); err != nil {
		t.Fatal(err)
	}
	// Someone else's ConfigMap in a namespace that was there before.
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: other}, Data: map[string]string{"a": "b"}}, metav1.CreateOptions{FieldManager: "someone"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		for _, n := range []string{mine, other, another} {
			_ = cs.RbacV1().ClusterRoles().Delete(ctx, n, metav1.DeleteOptions{})
		}
		_ = cs.RbacV1().ClusterRoleBindings().Delete(ctx, binding.Name, metav1.DeleteOptions{})
		_ = cs.CoreV1().ConfigMaps("default").Delete(ctx, other, metav1.DeleteOptions{})
	})
	return []string{mine}, []string{other, another}
}

// TestSharedCleanup: on a cluster kbook did not create, a runbook's
// cleanup deletes only what it can attribute to the runbook (written by
// a program it runs, or naming its namespace) and says what it left;
// sequential and parallel runs alike.
func TestSharedCleanup(t *testing.T) {
	c := startLocal(t)
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	for _, parallel := range []bool{false, true} {
		t.Run(fmt.Sprintf("parallel=%v", parallel), func(t *testing.T) {
			ctx := t.Context()
			var lines gobuild.Lines
			tg, err := New(ctx, cluster.Options{Backend: cluster.Local, Logger: &lines}, WithCluster(c), Parallel(parallel))
			if err != nil {
				t.Fatal(err)
			}
			tg.opts.Backend = cluster.Kubeconfig // the same server, as someone else's
			rb, err := runbook.Parse("runbooks/shared.md", []byte("---\nrequires: [cluster]\n---\n```testscript\nexec kubectl apply -f role.yaml\n```\n"))
			if err != nil {
				t.Fatal(err)
			}
			s, err := tg.Prepare(ctx, rb, newEnv(t))
			if err != nil {
				t.Fatal(err)
			}
			ns := s.(*Session).Namespace()
			prefix := fmt.Sprintf("shared-%v-%d", parallel, sessionRuns.Add(1))
			deleted, left := sharedObjects(t, ctx, cs, ns, prefix)
			if err := s.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if err := tg.Close(ctx); err != nil {
				t.Fatal(err)
			}
			for _, n := range deleted {
				if _, err := cs.RbacV1().ClusterRoles().Get(ctx, n, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					t.Errorf("clusterrole %s, the runbook's kubectl's, still there (err %v)", n, err)
				}
			}
			if _, err := cs.RbacV1().ClusterRoleBindings().Get(ctx, prefix+"-binding", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("clusterrolebinding naming the runbook's namespace still there (err %v)", err)
			}
			for _, n := range left {
				if _, err := cs.RbacV1().ClusterRoles().Get(ctx, n, metav1.GetOptions{}); err != nil {
					t.Errorf("clusterrole %s, someone else's, deleted: %v", n, err)
				}
			}
			if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, left[0], metav1.GetOptions{}); err != nil {
				t.Errorf("configmap default/%s, someone else's, deleted: %v", left[0], err)
			}
			log := lines.String()
			want := "runbooks/shared.md: left 3 objects created outside its namespace during the runbook: "
			if parallel {
				want = "the run: left 3 objects created outside the runbooks' namespaces during the run: "
			}
			if !strings.Contains(log, want) || !strings.Contains(log, "clusterroles.rbac.authorization.k8s.io/"+left[1]) ||
				!strings.Contains(log, "configmaps/"+left[0]+" -n default") || strings.Count(log, " left ") != 1 {
				t.Errorf("log does not say once what was left (want %q):\n%s", want, log)
			}
		})
	}
}
