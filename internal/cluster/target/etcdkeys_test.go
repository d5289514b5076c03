package target

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/log"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

func TestCRKeys(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		want []string
	}{
		{name: "none"},
		{
			name: "namespaced and cluster-scoped custom resources",
			keys: []string{
				"/registry/k0rdent.mirantis.com/clustertemplates/kb-a-1/tiny-1-0-0",
				"/registry/k0rdent.mirantis.com/managements/kcm",
			},
			want: []string{"k0rdent.mirantis.com/clustertemplates", "k0rdent.mirantis.com/clustertemplates/kb-a-1", "k0rdent.mirantis.com/managements"},
		},
		{
			name: "built-in keys map to no group",
			keys: []string{"/registry/configmaps/default/x", "/registry/namespaces/default", "/registry/services/specs/default/kubernetes"},
		},
		{name: "other prefixes", keys: []string{"/other/k0rdent.mirantis.com/managements/kcm", "compact_rev_key"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Sorted(maps.Keys(crKeys(tc.keys)))
			if !slices.Equal(got, tc.want) {
				t.Errorf("crKeys = %q, want %q", got, tc.want)
			}
		})
	}
}

// gadgetRuns numbers TestCustomResourceCleanup's runs (-count=N shares
// the server).
var gadgetRuns atomic.Int32

// TestCustomResourceCleanup: the lister asks etcd which custom resources
// hold objects and lists only those, and a runbook's custom resources, in
// its namespace and outside it, are still found and deleted.
func TestCustomResourceCleanup(t *testing.T) {
	c := startLocal(t)
	ctx := t.Context()
	if cluster.EtcdURL(c) == "" {
		t.Fatal("the local cluster names no etcd")
	}
	if err := cluster.InstallCRDs(ctx, c.RESTConfig(), []string{"testdata/crds/gadgets.yaml"}, log.NoopLogger{}); err != nil {
		t.Fatal(err)
	}
	tg, err := New(ctx, cluster.Options{Backend: cluster.Local}, WithCluster(c))
	if err != nil {
		t.Fatal(err)
	}
	tg.opts.Backend = cluster.Local
	s, err := tg.Prepare(ctx, clusterRunbook(fmt.Sprintf("runbooks/gadgets-%d.md", gadgetRuns.Add(1))), newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	sess := s.(*Session)
	ns := sess.Namespace()
	gvr := schema.GroupVersionResource{Group: "kbook.example.com", Version: "v1", Resource: "gadgets"}
	gadgets := dynamic.NewForConfigOrDie(c.RESTConfig()).Resource(gvr)
	outside := "gadget-outside-" + strings.TrimPrefix(ns, "kb-")
	for _, g := range []struct{ ns, name string }{{ns, "inside"}, {"default", outside}} {
		o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kbook.example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": g.name, "namespace": g.ns}}}
		if _, err := gadgets.Namespace(g.ns).Create(ctx, o, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	have, err := storedCRs(ctx, cluster.EtcdURL(c))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"kbook.example.com/gadgets", "kbook.example.com/gadgets/" + ns, "kbook.example.com/gadgets/default"} {
		if !have[k] {
			t.Errorf("etcd's keys do not show %s (got %d entries)", k, len(have))
		}
	}
	gadget := resource{gvr: gvr, namespaced: true}
	if sess.lister.emptyCRs(ctx, ns)(gadget) {
		t.Error("the lister would skip gadgets in the runbook's namespace, which holds one")
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct{ ns, name string }{{ns, "inside"}, {"default", outside}} {
		if _, err := gadgets.Namespace(g.ns).Get(ctx, g.name, metav1.GetOptions{}); err == nil {
			t.Errorf("gadget %s/%s still there after Close", g.ns, g.name)
		}
	}
	if !sess.lister.emptyCRs(ctx, ns)(gadget) {
		t.Error("after Close the lister would still list gadgets in the runbook's namespace")
	}
}
