package scaffold

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/testctx"
)

// TestControllerRuns: the scaffold's manager, built and started against a
// real API server serving Cluster API's CRDs and its own, provisions an
// InfraCluster owned by a Cluster and an InfraMachine owned by a Machine
// with bootstrap data (providerID, addresses, provisioned), and lets the
// InfraMachine go when it is deleted. Cluster API's controllers do not run:
// the test writes the Cluster and Machine fields they would.
func TestControllerRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a controller against a real API server; run without -short")
	}
	capi := apitest.SharedCRDs("capi")
	if len(capi) == 0 {
		t.Skip("needs Cluster API's CRDs in ../shared/crds/capi (beside the repository)")
	}
	o := Options{Name: "acme", Group: "infrastructure.acme.example"}
	dir := scaffoldController(t, o)
	srv := apitest.New(append(capi, filepath.Join(dir, "config", "crd", "bases"))...)
	t.Cleanup(srv.Stop)
	cfg := srv.Config(t)

	ctx, cancel := testctx.New(t)
	defer cancel()
	goCmd(t, ctx, dir, "build", "-o", "bin/manager", "./cmd")

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["test"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["test"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "test"}
	kc.CurrentContext = "test"
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	mgr := exec.Command(filepath.Join(dir, "bin", "manager"), "--kubeconfig", kubeconfig, "--health-probe-bind-address=0", "--metrics-bind-address=0")
	mgr.Stdout, mgr.Stderr = &logs, &logs
	mgr.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // dies with the test binary
	if err := mgr.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = mgr.Process.Kill()
		_ = mgr.Wait()
		if t.Failed() {
			t.Logf("manager log:\n%s", logs.String())
		}
	})

	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const ns = "default"
	gv := schema.GroupVersion{Group: o.Group, Version: "v1alpha1"}
	obj := func(apiVersion, kind, name string, fields map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
			"metadata": map[string]any{"namespace": ns, "name": name}}}
		for k, v := range fields {
			u.Object[k] = v
		}
		return u
	}
	create := func(u *unstructured.Unstructured, owner *unstructured.Unstructured) {
		t.Helper()
		if owner != nil {
			u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: owner.GetAPIVersion(), Kind: owner.GetKind(), Name: owner.GetName(), UID: owner.GetUID()}})
		}
		if err := c.Create(ctx, u); err != nil {
			t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
	cluster := obj("cluster.x-k8s.io/v1beta2", "Cluster", "c1", map[string]any{"spec": map[string]any{
		"infrastructureRef": map[string]any{"apiGroup": gv.Group, "kind": "AcmeCluster", "name": "c1"}}})
	create(cluster, nil)
	ic := obj(gv.String(), "AcmeCluster", "c1", map[string]any{"spec": map[string]any{}})
	create(ic, cluster)
	machine := obj("cluster.x-k8s.io/v1beta2", "Machine", "m1", map[string]any{"spec": map[string]any{
		"clusterName": "c1", "bootstrap": map[string]any{"dataSecretName": "m1-bootstrap"},
		"infrastructureRef": map[string]any{"apiGroup": gv.Group, "kind": "AcmeMachine", "name": "m1"}}})
	create(machine, nil)
	im := obj(gv.String(), "AcmeMachine", "m1", map[string]any{"spec": map[string]any{}})
	im.SetLabels(map[string]string{"cluster.x-k8s.io/cluster-name": "c1"})
	create(im, machine)

	// wait polls the object until ok says it is there.
	wait := func(u *unstructured.Unstructured, what string, ok func(*unstructured.Unstructured, error) bool) {
		t.Helper()
		for {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(u.GroupVersionKind())
			err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: u.GetName()}, got)
			if ok(got, err) {
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%s %s: %s not reached (last error %v): %v", u.GetKind(), u.GetName(), what, err, got.Object["status"])
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	provisioned := func(u *unstructured.Unstructured, err error) bool {
		p, _, _ := unstructured.NestedBool(u.Object, "status", "initialization", "provisioned")
		return err == nil && p
	}
	wait(ic, "status.initialization.provisioned", provisioned)
	wait(im, "the Cluster's infrastructure", func(u *unstructured.Unstructured, err error) bool {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		return err == nil && len(conds) > 0 && conds[0].(map[string]any)["reason"] == "WaitingForClusterInfrastructure"
	})
	// What Cluster API's Cluster controller does once the InfraCluster is provisioned.
	if err := unstructured.SetNestedField(cluster.Object, true, "status", "initialization", "infrastructureProvisioned"); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	wait(im, "spec.providerID and status.initialization.provisioned", func(u *unstructured.Unstructured, err error) bool {
		id, _, _ := unstructured.NestedString(u.Object, "spec", "providerID")
		return provisioned(u, err) && id == "acme://default/m1"
	})
	if err := c.Delete(ctx, im); err != nil {
		t.Fatal(err)
	}
	wait(im, "deletion", func(_ *unstructured.Unstructured, err error) bool { return apierrors.IsNotFound(err) })
}
