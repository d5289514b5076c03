package target

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// u builds an unstructured object from its JSON-like map.
func u(m map[string]any) *unstructured.Unstructured { return &unstructured.Unstructured{Object: m} }

// TestRestoreDecision: what counts as changed (labels, annotations, a
// top-level field; not status, managedFields, resourceVersion,
// generation, finalizers, an aggregated ClusterRole's rules), what is
// left out (owned, service-account tokens, kube-root-ca.crt, runbook
// namespaces, what was being deleted before), what is re-created and in
// which order, and what a replaced object is.
func TestRestoreDecision(t *testing.T) {
	cm := corev1.SchemeGroupVersion.WithResource("configmaps")
	ns := corev1.SchemeGroupVersion.WithResource("namespaces")
	secrets := corev1.SchemeGroupVersion.WithResource("secrets")
	roles := schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}
	mgmt := schema.GroupVersionResource{Group: "k0rdent.mirantis.com", Version: "v1beta1", Resource: "managements"}

	base := func() *unstructured.Unstructured {
		return u(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "c", "namespace": "n", "resourceVersion": "1", "generation": int64(1),
				"labels": map[string]any{"a": "b"}, "annotations": map[string]any{"x": "y"}},
			"data": map[string]any{"k": "v"}, "status": map[string]any{"phase": "Ready"}})
	}
	o := object{GVR: cm, Namespace: "n", Name: "c"}
	for _, tc := range []struct {
		name   string
		change func(*unstructured.Unstructured)
		want   bool
	}{
		{"nothing", func(*unstructured.Unstructured) {}, false},
		{"status", func(l *unstructured.Unstructured) { l.Object["status"] = map[string]any{"phase": "Failed"} }, false},
		{"resourceVersion, generation, managedFields, finalizers", func(l *unstructured.Unstructured) {
			l.SetResourceVersion("9")
			l.SetGeneration(4)
			l.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl"}})
			l.SetFinalizers([]string{"example.com/f"})
		}, false},
		{"labels emptied to {}", func(l *unstructured.Unstructured) {
			b := l.DeepCopy()
			b.SetLabels(nil)
			*l = *b
			l.Object["metadata"].(map[string]any)["labels"] = map[string]any{}
		}, true},
		{"a label", func(l *unstructured.Unstructured) { l.SetLabels(map[string]string{"a": "c"}) }, true},
		{"an annotation", func(l *unstructured.Unstructured) { l.SetAnnotations(map[string]string{"x": "y", "z": "1"}) }, true},
		{"data", func(l *unstructured.Unstructured) { l.Object["data"] = map[string]any{"k": "w"} }, true},
		{"a new top-level field", func(l *unstructured.Unstructured) { l.Object["binaryData"] = map[string]any{} }, true},
	} {
		live := base()
		tc.change(live)
		if got := differs(o, base(), live); got != tc.want {
			t.Errorf("differs after %s = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Without labels before, an empty map after is no change.
	nolabels := base()
	nolabels.SetLabels(nil)
	empty := nolabels.DeepCopy()
	empty.Object["metadata"].(map[string]any)["labels"] = map[string]any{}
	if differs(o, nolabels, empty) {
		t.Error("no labels and empty labels differ")
	}
	// An aggregated ClusterRole's rules are the aggregation controller's.
	agg := func(rule string) *unstructured.Unstructured {
		return u(map[string]any{"metadata": map[string]any{"name": "admin"},
			"aggregationRule": map[string]any{"clusterRoleSelectors": []any{}},
			"rules":           []any{map[string]any{"verbs": []any{rule}}}})
	}
	role := object{GVR: roles, Name: "admin"}
	if differs(role, agg("get"), agg("list")) {
		t.Error("an aggregated ClusterRole's rules count as changed")
	}
	plain := func(rule string) *unstructured.Unstructured {
		return u(map[string]any{"metadata": map[string]any{"name": "r"}, "rules": []any{map[string]any{"verbs": []any{rule}}}})
	}
	if !differs(role, plain("get"), plain("list")) {
		t.Error("a ClusterRole's own rules do not count as changed")
	}

	// putBack writes the saved content over the live object, keeping its
	// version, status and finalizers.
	live := base()
	live.SetResourceVersion("7")
	live.SetLabels(map[string]string{"by": "page"})
	live.SetFinalizers([]string{"example.com/f"})
	live.Object["data"] = map[string]any{"k": "new", "extra": "1"}
	live.Object["status"] = map[string]any{"phase": "Live"}
	live.Object["binaryData"] = map[string]any{"b": "AA=="}
	back := putBack(o, base(), live)
	if back.GetResourceVersion() != "7" || back.Object["status"].(map[string]any)["phase"] != "Live" || len(back.GetFinalizers()) != 1 {
		t.Errorf("putBack lost the live version, status or finalizers: %v", back.Object)
	}
	if differs(o, base(), back) || back.Object["binaryData"] != nil {
		t.Errorf("putBack did not put the saved content back: %v", back.Object)
	}

	// fresh leaves out what the API server sets, and status.
	f := base()
	f.SetUID("u1")
	f.SetCreationTimestamp(metav1.Now())
	f.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl"}})
	f = fresh(f)
	md := f.Object["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"} {
		if _, ok := md[k]; ok {
			t.Errorf("fresh keeps metadata.%s", k)
		}
	}
	if _, ok := f.Object["status"]; ok || f.GetLabels()["a"] != "b" || f.Object["data"] == nil {
		t.Errorf("fresh: %v", f.Object)
	}

	// What is left out, and why.
	tokenSecret := u(map[string]any{"metadata": map[string]any{"name": "t"}, "type": "kubernetes.io/service-account-token"})
	owned := u(map[string]any{"metadata": map[string]any{"name": "o", "ownerReferences": []any{map[string]any{"name": "x"}}}})
	for _, tc := range []struct {
		o    object
		u    *unstructured.Unstructured
		want string
	}{
		{object{GVR: cm, Namespace: "n", Name: "c"}, base(), ""},
		{object{GVR: ns, Name: "default"}, nil, ""},
		{object{GVR: secrets, Namespace: "n", Name: "t"}, tokenSecret, "the token controller fills it"},
		{object{GVR: secrets, Namespace: "n", Name: "s"}, u(map[string]any{"type": "Opaque"}), ""},
		{object{GVR: cm, Namespace: "n", Name: "kube-root-ca.crt"}, nil, "kube-controller-manager publishes it"},
		{object{GVR: cm, Namespace: "n", Name: "o"}, owned, "it has an owner"},
		{object{GVR: ns, Name: "kb-page-0a1b2c"}, nil, "it is a runbook's namespace"},
		{object{GVR: cm, Namespace: "kb-page-0a1b2c", Name: "c"}, nil, "it is a runbook's namespace"},
		{object{GVR: ns, Name: "old", Deleting: true}, nil, "it was being deleted before the page"},
		{object{GVR: cm, Namespace: "old", Name: "c"}, nil, "its namespace was being deleted before the page"},
	} {
		if got := notRestored(tc.o, tc.u, map[string]bool{"old": true}); got != tc.want {
			t.Errorf("notRestored(%s) = %q, want %q", tc.o, got, tc.want)
		}
	}

	// The plan: before against after.
	sv := func(uid string, o object, rv string) saved {
		o.UID, o.ResourceVersion = types.UID(uid), rv
		return saved{object: o, u: u(map[string]any{"metadata": map[string]any{"name": o.Name}})}
	}
	before := map[types.UID]saved{}
	for _, s := range []saved{
		sv("1", object{GVR: ns, Name: "default"}, "1"),
		sv("2", object{GVR: cm, Namespace: "default", Name: "same"}, "2"),
		sv("3", object{GVR: cm, Namespace: "default", Name: "written"}, "3"),
		sv("4", object{GVR: cm, Namespace: "gone", Name: "deleted"}, "4"),
		sv("5", object{GVR: ns, Name: "gone"}, "5"),
		sv("6", object{GVR: crdGVR, Name: "managements.k0rdent.mirantis.com"}, "6"),
		sv("7", object{GVR: mgmt, Name: "kcm"}, "7"),
		sv("8", object{GVR: cm, Namespace: "default", Name: "replaced"}, "8"),
		sv("9", object{GVR: cm, Namespace: "default", Name: "kube-root-ca.crt"}, "9"),
		sv("10", object{GVR: roles, Name: "deleted-role"}, "10"),
	} {
		before[s.UID] = s
	}
	after := map[types.UID]object{}
	for _, s := range before {
		switch s.Name {
		case "gone", "deleted", "managements.k0rdent.mirantis.com", "kcm", "kube-root-ca.crt", "deleted-role":
			continue // deleted by the page
		}
		a := s.object
		if s.Name == "written" {
			a.ResourceVersion = "30"
		}
		if s.Name == "replaced" {
			a.UID = "80"
		}
		after[a.UID] = a
	}
	after["11"] = object{GVR: cm, Namespace: "default", Name: "new", UID: "11", ResourceVersion: "11"}
	p := planRestore(before, after)
	var recreate, changed, replaced []string
	for _, s := range p.recreate {
		recreate = append(recreate, s.String())
	}
	for _, c := range p.changed {
		changed = append(changed, c.String())
	}
	for k := range p.replaced {
		replaced = append(replaced, k)
	}
	sort.Strings(replaced)
	if got, want := strings.Join(recreate, "; "), "namespaces/gone; customresourcedefinitions.apiextensions.k8s.io/managements.k0rdent.mirantis.com; clusterroles.rbac.authorization.k8s.io/deleted-role; managements.k0rdent.mirantis.com/kcm; configmaps/deleted -n gone"; got != want {
		t.Errorf("re-created, in order:\n%s\nwant\n%s", got, want)
	}
	if got, want := strings.Join(changed, "; "), "configmaps/replaced -n default; configmaps/written -n default"; got != want {
		t.Errorf("changed: %s, want %s", got, want)
	}
	if got, want := strings.Join(replaced, "; "), "/v1, Resource=configmaps|default|replaced"; got != want {
		t.Errorf("replaced: %s, want %s", got, want)
	}
	made := created(objectsOf(before), after, nil)
	if got := notReplaced(made, p.replaced); len(got) != 1 || got[0].Name != "new" {
		t.Errorf("new objects to delete: %v, want only configmaps/new", got)
	}
}

// restoreRuns counts TestAloneRestored's runs in this process (-count=N
// shares the server).
var restoreRuns atomic.Int32

// TestAloneRestored runs a page that runs alone (it names a namespace of
// its own) on the local backend: it patches a ConfigMap and labels
// namespace default, which were there before it, deletes another
// ConfigMap and makes a new one. After runner.Run the cluster is as it
// was before the page, and its result says what was put back; the run's
// own cleanup at the end keeps the ConfigMap that was re-created.
func TestAloneRestored(t *testing.T) {
	c := startLocal(t)
	ctx := t.Context()
	ns := fmt.Sprintf("restore-pre-%d", restoreRuns.Add(1))
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}))
	must(cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "patched", Labels: map[string]string{"keep": "me"}},
		Data: map[string]string{"k": "old"}}, metav1.CreateOptions{}))
	must(cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "doomed", Labels: map[string]string{"a": "b"},
		Annotations: map[string]string{"note": "was here"}}, Data: map[string]string{"x": "y"}}, metav1.CreateOptions{}))

	// Parallel: a run of several runbooks, where no runbook's
	// cleanup deleted what it made until now.
	tg, err := New(ctx, cluster.Options{Backend: cluster.Local}, WithCluster(c), Parallel(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Cluster(); err != nil {
		t.Fatal(err)
	}
	l, err := newLister(c.RESTConfig(), cluster.EtcdURL(c))
	if err != nil {
		t.Fatal(err)
	}
	state := func() map[string]saved {
		t.Helper()
		s, err := l.wholeSnapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]saved{}
		for _, o := range s {
			out[o.key()] = o
		}
		return out
	}
	before := state()

	page := filepath.Join(t.TempDir(), "alone.md")
	src := "---\nrun: shell\n---\n\n```bash\n" +
		"kubectl -n " + ns + " patch configmap patched --type merge -p '{\"data\":{\"k\":\"new\"},\"metadata\":{\"labels\":{\"by\":\"page\"}}}'\n" +
		"kubectl label namespace default kbook-restore-test=yes\n" +
		"kubectl -n " + ns + " delete configmap doomed\n" +
		"kubectl -n " + ns + " create configmap fresh --from-literal=a=b\n" +
		"```\n"
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rbs, err := runbook.Load([]string{page})
	if err != nil {
		t.Fatal(err)
	}
	if rbs[0].SharesCluster() == "" {
		t.Fatal("the page does not run alone")
	}
	r, err := runner.New(runner.Options{Parallel: 2, Target: tg, Cmds: kubecmd.Commands(),
		NeedsTarget: func(*runbook.Runbook) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Run(ctx, rbs).Runbooks[0]
	if res.Status != report.Passed {
		t.Fatalf("%s: %s\n%s", res.Status, res.Reason, res.Log)
	}

	after := state()
	for k, b := range before {
		a, ok := after[k]
		switch {
		case !ok:
			t.Errorf("%s: gone after the page", b)
		case differs(b.object, b.u, a.u):
			t.Errorf("%s: not as before the page:\nbefore %v\nafter  %v", b, b.u.Object, a.u.Object)
		}
	}
	for k, a := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s: new after the page", a)
		}
	}

	rs := res.Restored
	if rs == nil {
		t.Fatal("the result says nothing of what was restored")
	}
	want := &report.Restored{
		Changed:   report.Objects{Count: 2, First: []string{"configmaps/patched -n " + ns, "namespaces/default"}},
		Recreated: report.Objects{Count: 1, First: []string{"configmaps/doomed -n " + ns}},
		Deleted:   report.Objects{Count: 1, First: []string{"configmaps/fresh -n " + ns}},
	}
	if fmt.Sprint(rs.Changed, rs.Recreated, rs.Deleted, rs.Failed) != fmt.Sprint(want.Changed, want.Recreated, want.Deleted, want.Failed) {
		t.Errorf("restored %+v\nwant     %+v", rs, want)
	}
	if rs.Duration <= 0 {
		t.Errorf("restore took %s", rs.Duration)
	}
	t.Logf("%s (%d objects)", rs, len(before))

	// The run's cleanup knows the re-created ConfigMap by its new UID.
	if err := tg.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "doomed", metav1.GetOptions{}); err != nil {
		t.Errorf("the re-created ConfigMap after the run's cleanup: %v", err)
	}
	// Finalized, not left terminating on the server the package's tests share.
	if err := tg.deleteNamespace(context.WithoutCancel(ctx), l, ns, nil); err != nil {
		t.Error(err)
	}
}
