// Package inventory_test checks the example provider as its users would
// (provider validate, and conformance with its controller running).
//
// kbook provider validate runs on the release's components, metadata.yaml
// and the ProviderTemplate chart, and kbook provider conformance with the
// provider's controller running.
package inventory_test

import (
	"net/http/httptest"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	infrav1 "github.com/k0rdent/kbook/examples/providers/inventory/api/v1alpha1"
	"github.com/k0rdent/kbook/examples/providers/inventory/controller"
	"github.com/k0rdent/kbook/examples/providers/inventory/inventory"
	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/provider"
	"github.com/k0rdent/kbook/internal/provider/conformance"
	"github.com/k0rdent/kbook/internal/testctx"
)

var inputs = []string{"infrastructure-components.yaml", "metadata.yaml", "chart"}

func TestValidate(t *testing.T) {
	s, err := provider.Load(inputs, provider.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := provider.Validate(s, provider.Options{Registries: []string{"registry.example.com/inventory"}})
	for _, f := range r.Findings {
		// The manager reads identity Secrets in any namespace: SEC103 says so.
		if f.Severity == findings.Error || f.Rule != provider.RuleClusterSecrets {
			t.Errorf("%s:%d: %s: %s [%s]", f.File, f.Line, f.Severity, f.Message, f.Rule)
		}
	}
	if len(r.Resources) != 4 {
		t.Errorf("contract resources: %+v", r.Resources)
	}
}

var server = apitest.New()

func TestMain(m *testing.M) {
	code := m.Run()
	server.Stop()
	os.Exit(code)
}

// TestConformanceWithController runs conformance while the provider's
// controller reconciles against the same API server and a real inventory:
// the controller, not kbook, sets providerID and readiness.
func TestConformanceWithController(t *testing.T) {
	cfg := server.Config(t)
	ctx, cancel := testctx.New(t)
	defer cancel()
	set, err := provider.Load(inputs, provider.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = infrav1.AddToScheme(scheme)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	inv := httptest.NewServer(inventory.NewServer("t0ken", inventory.Pool(2, []string{"zone-a"})))
	defer inv.Close()
	ns := "inventory-conformance"
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "inventory-token", Namespace: ns}, StringData: map[string]string{"token": "t0ken"}},
	} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	// The CRDs are installed by conformance; the identity needs them, so
	// the controller and the identity start once they are served.
	go func() {
		for ctx.Err() == nil {
			id := &unstructured.Unstructured{Object: map[string]any{"apiVersion": infrav1.GroupVersion.String(), "kind": "InventoryIdentity",
				"metadata": map[string]any{"name": "inventory", "namespace": ns},
				"spec":     map[string]any{"url": inv.URL, "secretRef": map[string]any{"name": "inventory-token"}}}}
			if err := c.Create(ctx, id); err == nil {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
		if err != nil {
			t.Error(err)
			return
		}
		_ = (&controller.ClusterReconciler{Client: mgr.GetClient(), NewClient: inventory.NewClient}).SetupWithManager(mgr)
		_ = (&controller.MachineReconciler{Client: mgr.GetClient(), NewClient: inventory.NewClient}).SetupWithManager(mgr)
		_ = mgr.Start(ctx)
	}()
	samples := map[string]*unstructured.Unstructured{
		"InventoryCluster": {Object: map[string]any{"spec": map[string]any{"identityRef": map[string]any{"name": "inventory"},
			"controlPlaneEndpoint": map[string]any{"host": "10.10.0.1", "port": int64(6443)}}}},
		"InventoryMachine": {Object: map[string]any{"metadata": map[string]any{
			"labels":      map[string]any{controller.ClusterNameLabel: "conformance-inventorycluster"},
			"annotations": map[string]any{controller.StandaloneAnnotation: "true"}}}},
	}
	res, err := conformance.RunSet(ctx, set, conformance.RunOptions{Config: cfg, Namespace: ns, Controller: true, Samples: samples, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ch := range res.Checks {
		seen[ch.Name] = true
		if ch.Status != conformance.Pass {
			t.Errorf("%s: %s: %s", ch.Status, ch.Name, ch.Message)
		}
	}
	for _, want := range []string{
		"InventoryMachine: the controller sets providerID at spec.providerID",
		"InventoryMachine: the controller sets provisioned at status.initialization.provisioned",
		"InventoryCluster: the controller sets provisioned at status.initialization.provisioned",
	} {
		if !seen[want] {
			t.Errorf("no check %q", want)
		}
	}
}
