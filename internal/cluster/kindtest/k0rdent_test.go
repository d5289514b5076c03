//go:build e2e

package kindtest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/kcminstall"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/testctx"
)

// TestInstallIntoKind: --k0rdent on the kind backend installs k0rdent
// v1.11.4 as its QuickStart does (helm install kcm from an OCI registry,
// kbook's; see package kcminstall) and returns once k0rdent has done its
// part on its own: the Release of the version kcm was built as is ready,
// the Management is Ready with the providers kbook keeps and kubeadm,
// which it adds, and the Cluster API operator has installed them (runbooks/k0rdent-in-kind.md shows the
// rest). Stop leaves no container.
func TestInstallIntoKind(t *testing.T) {
	image := nodeImage(t)
	rel, err := controllers.K0rdent("v1.11.4")
	if err != nil {
		t.Fatal(err)
	}
	if _, why := controllers.K0rdentAwait(context.Background(), rel, false, controllers.WithInCluster(true)); why != "" {
		t.Skipf("k0rdent v1.11.4: %s", why)
	}
	ctx, cancel := testctx.New(t)
	defer cancel()
	reg, err := proc.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	// kbook run --cluster kind --k0rdent v1.11.4 and kbook cluster up's
	// background process make the cluster this way.
	kn := name(t, "kcm")
	c, err := cluster.Up(ctx, cluster.Options{Backend: cluster.Kind, Name: kn, KindImage: image, Procs: reg,
		K0rdent: "v1.11.4", Logger: log.To{W: testWriter{t}}})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = c.Stop(context.Background())
		}
	}()
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	get := func(group, version, res, ns, name string) map[string]any {
		t.Helper()
		gvr := schema.GroupVersionResource{Group: group, Version: version, Resource: res}
		var (
			u   *unstructured.Unstructured
			err error
		)
		if ns == "" {
			u, err = dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		} else {
			u, err = dyn.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		}
		if err != nil {
			t.Fatalf("%s %s: %v", res, name, err)
		}
		return u.Object
	}
	// Up returned: all of it is there now, nothing to wait for.
	if ok, _, _ := unstructured.NestedBool(get("k0rdent.mirantis.com", "v1beta1", "releases", "", "kcm-1-11-4"), "status", "ready"); !ok {
		t.Errorf("Release kcm-1-11-4 not ready")
	}
	m := get("k0rdent.mirantis.com", "v1beta1", "managements", "", "kcm")
	if ok, msg := ready(m); !ok {
		t.Errorf("Management kcm not Ready: %s", msg)
	}
	providers, _, _ := unstructured.NestedSlice(m, "spec", "providers")
	var names []string
	for _, p := range providers {
		names = append(names, fmt.Sprint(p.(map[string]any)["name"]))
	}
	if want := append(slices.Clone(kcminstall.Providers), kcminstall.KubeadmProvider); !slices.Equal(names, want) {
		t.Errorf("Management providers %v, want %v", names, want)
	}
	for _, p := range [][2]string{{"coreproviders", "cluster-api"}, {"infrastructureproviders", "docker"}, {"bootstrapproviders", "kubeadm"}, {"controlplaneproviders", "kubeadm"}} {
		if ok, msg := ready(get("operator.cluster.x-k8s.io", "v1alpha2", p[0], "kcm-system", p[1])); !ok {
			t.Errorf("%s %s not Ready: %s", p[0], p[1], msg)
		}
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if left := containers(t, kn); len(left) > 0 {
		t.Errorf("containers left after Stop: %v", left)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// ready reads a Ready condition.
func ready(o map[string]any) (bool, string) {
	conds, _, _ := unstructured.NestedSlice(o, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			return m["status"] == "True", fmt.Sprint(m["message"])
		}
	}
	return false, "no Ready condition"
}
