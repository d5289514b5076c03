package target

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
	"github.com/rogpeppe/go-internal/testscript"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// sharedCRDs are the reference CRDs beside the repository, if present.
var sharedCRDs = func() []string {
	var out []string
	for _, d := range []string{"k0rdent", "capi"} {
		p := filepath.Join("..", "..", "..", "..", "shared", "crds", d)
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}()

var (
	localOnce sync.Once
	local     cluster.Cluster
	localErr  error
)

// localCluster starts one local API server for the package's tests (with
// the shared CRDs when present) or skips.
func startLocal(t *testing.T) cluster.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a local API server; skipped with -short")
	}
	dir, why := binaries.Available()
	if why != "" {
		t.Skip(why)
	}
	localOnce.Do(func() {
		local, localErr = cluster.Up(context.Background(), cluster.Options{Backend: cluster.Local, AssetsDir: dir, CRDs: sharedCRDs, Procs: apitest.Procs(t)})
	})
	if localErr != nil {
		t.Fatal(localErr)
	}
	return local
}

func TestMain(m *testing.M) {
	code := m.Run()
	if local != nil {
		_ = local.Stop(context.Background())
	}
	apitest.CloseProcs()
	os.Exit(code)
}

// clusterRunbook is a runbook that asks for a cluster.
func clusterRunbook(path string) *runbook.Runbook {
	return &runbook.Runbook{Path: path, Meta: runbook.Meta{Requires: []string{"cluster"}}}
}

// newEnv is the part of a testscript environment Prepare uses.
func newEnv(t *testing.T) *testscript.Env {
	return &testscript.Env{WorkDir: t.TempDir(), Values: map[any]any{}, Vars: []string{"PATH=" + os.Getenv("PATH")}}
}

func getenv(env *testscript.Env, key string) string {
	v := ""
	for _, kv := range env.Vars {
		if k, val, _ := strings.Cut(kv, "="); k == key {
			v = val
		}
	}
	return v
}

// TestSession checks a runbook's share of the cluster: its namespace and
// kubeconfig, the conditions, and that Close removes what the runbook made,
// inside and outside its namespace.
func TestSession(t *testing.T) {
	// A namespace name of its own per run: -count=N shares the server,
	// where the last one, deleted at the end, stays Terminating (the
	// local server has no namespace controller).
	other := fmt.Sprintf("session-other-%d", sessionRuns.Add(1))
	c := startLocal(t)
	ctx := t.Context()
	tg, err := New(ctx, cluster.Options{Backend: cluster.Local}, WithCluster(c))
	if err != nil {
		t.Fatal(err)
	}
	tg.opts.Backend = cluster.Local
	rb := clusterRunbook("runbooks/session-test.md")
	env := newEnv(t)
	s, err := tg.Prepare(ctx, rb, env)
	if err != nil {
		t.Fatal(err)
	}
	sess := s.(*Session)
	ns := sess.Namespace()
	if !strings.HasPrefix(ns, "kb-session-test-") || getenv(env, "NAMESPACE") != ns {
		t.Fatalf("namespace %q, $NAMESPACE %q", ns, getenv(env, "NAMESPACE"))
	}
	kc, err := clientcmd.LoadFromFile(getenv(env, "KUBECONFIG"))
	if err != nil {
		t.Fatal(err)
	}
	if got := kc.Contexts[kc.CurrentContext].Namespace; got != ns {
		t.Errorf("kubeconfig namespace %q, want %q", got, ns)
	}
	if _, ok := env.Values[kubecmd.ClientKey{}].(*kubecmd.Client); !ok {
		t.Error("no kube client for the script's commands")
	}

	conds := tg.Conditions()
	for _, tc := range []struct {
		name, arg string
		want      bool
	}{
		{"cluster", "", true},
		{cluster.Local, "", true},
		{cluster.Kind, "", false},
		{cluster.Kubeconfig, "", false},
		{"api:", "namespaces", true},
		{"api:", "clusterroles.rbac.authorization.k8s.io", true},
		{"api:", "widgets.example.com", false},
		{"k0rdent", "", len(sharedCRDs) > 0},
	} {
		ok, why := conds[tc.name](tc.arg)
		if ok != tc.want || (!ok && why == "") {
			t.Errorf("condition %s%s = %v (%s), want %v", tc.name, tc.arg, ok, why, tc.want)
		}
	}

	// What a runbook might leave behind.
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	mustCreate := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "in-ns"}}, metav1.CreateOptions{})
	mustCreate(err)
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: other}}, metav1.CreateOptions{})
	mustCreate(err)
	_, err = cs.CoreV1().ConfigMaps(other).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Finalizers: []string{"example.com/never"}}}, metav1.CreateOptions{})
	mustCreate(err)
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "session-left"}}, metav1.CreateOptions{})
	mustCreate(err)
	_, err = cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "session-role"}}, metav1.CreateOptions{})
	mustCreate(err)

	if d := s.Diagnose(ctx); !strings.Contains(d, "session-role") && !strings.Contains(d, "session-left") {
		t.Errorf("diagnostics do not mention the objects the runbook created:\n%s", d)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	gone := func(what string, err error) {
		t.Helper()
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s still there after Close (err %v)", what, err)
		}
	}
	_, err = cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	gone("runbook namespace", err)
	_, err = cs.CoreV1().Namespaces().Get(ctx, other, metav1.GetOptions{})
	gone("namespace "+other, err)
	_, err = cs.CoreV1().ConfigMaps("default").Get(ctx, "session-left", metav1.GetOptions{})
	gone("configmap default/session-left", err)
	_, err = cs.RbacV1().ClusterRoles().Get(ctx, "session-role", metav1.GetOptions{})
	gone("clusterrole session-role", err)
	// The namespace can be made again at once: it was finalized, not left Terminating.
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: other}}, metav1.CreateOptions{})
	mustCreate(err)
	_ = cs.CoreV1().Namespaces().Delete(ctx, other, metav1.DeleteOptions{})
}

// sessionRuns counts TestSession's runs in this process.
var sessionRuns atomic.Int32

// TestKeep leaves everything in place.
func TestKeep(t *testing.T) {
	c := startLocal(t)
	ctx := t.Context()
	tg, err := New(ctx, cluster.Options{Backend: cluster.Local}, WithCluster(c), Keep(true))
	if err != nil {
		t.Fatal(err)
	}
	s, err := tg.Prepare(ctx, clusterRunbook("keep.md"), newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	if _, err := cs.CoreV1().Namespaces().Get(ctx, s.(*Session).Namespace(), metav1.GetOptions{}); err != nil {
		t.Errorf("kept namespace: %v", err)
	}
}

// TestParallelCleanup defers cleanup of objects outside runbook
// namespaces to the end of the run.
func TestParallelCleanup(t *testing.T) {
	c := startLocal(t)
	ctx := t.Context()
	tg, err := New(ctx, cluster.Options{Backend: cluster.Local}, WithCluster(c), Parallel(true))
	if err != nil {
		t.Fatal(err)
	}
	s, err := tg.Prepare(ctx, clusterRunbook("p.md"), newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "parallel-role"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoles().Get(ctx, "parallel-role", metav1.GetOptions{}); err != nil {
		t.Fatalf("deleted while other runbooks may still use it: %v", err)
	}
	if err := tg.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoles().Get(ctx, "parallel-role", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("still there after the run: %v", err)
	}
}
