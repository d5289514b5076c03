package kindtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/testctx"
)

// TestInstallIntoKind: --k0rdent on the kind backend installs k0rdent
// v1.11.4 as its QuickStart does (helm install kcm from an OCI registry,
// kbook's; see package kcminstall), and kcm then does its part on its own:
// it pulls kcm-templates through Flux from that registry and creates the
// Release of the version it was built as, whose ProviderTemplates become
// valid, and its Management takes kcm's release over. Stop leaves no
// container.
func TestInstallIntoKind(t *testing.T) {
	image := nodeImage(t)
	rel, err := controllers.K0rdent("v1.11.4")
	if err != nil {
		t.Fatal(err)
	}
	if _, why := controllers.K0rdentAwait(context.Background(), rel, false); why != "" {
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
	gvr := func(res string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "k0rdent.mirantis.com", Version: "v1beta1", Resource: res}
	}
	// kcm creates the Release of the version it was built as from the
	// kcm-templates chart it pulls from kbook's registry through Flux.
	waitFor(ctx, t, "Release kcm-1-11-4 ready", func() (bool, string) {
		r, err := dyn.Resource(gvr("releases")).Get(ctx, "kcm-1-11-4", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		ok, _, _ := unstructured.NestedBool(r.Object, "status", "ready")
		return ok, fmt.Sprint(r.Object["status"])
	})
	// Each ProviderTemplate's chart, pulled from the registry, is valid.
	for _, name := range []string{"kcm-1-11-4", "cluster-api-1-1-15", "cluster-api-provider-docker-1-0-24"} {
		waitFor(ctx, t, "ProviderTemplate "+name+" valid", func() (bool, string) {
			r, err := dyn.Resource(gvr("providertemplates")).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			ok, _, _ := unstructured.NestedBool(r.Object, "status", "valid")
			return ok, fmt.Sprint(r.Object["status"])
		})
	}
	// kcm's Management takes kcm's own release over (a Flux HelmRelease
	// of the kcm chart from the registry) and reports it healthy.
	waitFor(ctx, t, "Management kcm: component kcm healthy", func() (bool, string) {
		m, err := dyn.Resource(gvr("managements")).Get(ctx, "kcm", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		ok, _, _ := unstructured.NestedBool(m.Object, "status", "components", "kcm", "success")
		msg, _, _ := unstructured.NestedString(m.Object, "status", "components", "kcm", "error")
		return ok, msg
	})
	m, err := dyn.Resource(gvr("managements")).Get(ctx, "kcm", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, msg := ready(m.Object)
	t.Logf("Management kcm, as expected without cert-manager and the Cluster API operator: %s", msg)
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

// waitFor polls cond until it holds; at ctx's end the test fails with
// cond's last reason.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	why := ""
	for {
		var ok bool
		if ok, why = cond(); ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %s", what, why)
		case <-time.After(2 * time.Second):
		}
	}
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
