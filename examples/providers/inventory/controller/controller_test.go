package controller

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	infrav1 "github.com/k0rdent/kbook/examples/providers/inventory/api/v1alpha1"
	"github.com/k0rdent/kbook/examples/providers/inventory/inventory"
	"github.com/k0rdent/kbook/internal/apitest"
)

var server = apitest.New(append([]string{"../config/crd/bases"}, sharedCAPI()...)...)

// sharedCAPI is Cluster API's CRDs from the reference data, when present,
// for the owned-Machine case.
func sharedCAPI() []string {
	d := filepath.Join("..", "..", "..", "..", "..", "shared", "crds", "capi")
	if _, err := os.Stat(d); err != nil {
		return nil
	}
	return []string{d}
}

func TestMain(m *testing.M) {
	code := m.Run()
	server.Stop()
	os.Exit(code)
}

const token = "inv-t0ken-never-logged"

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) write(prefix, args string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintln(&s.b, prefix, args)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// start runs the provider's controllers against the test API server and
// an inventory of n machines; it returns a client and the inventory URL.
func start(t *testing.T, n int) (client.Client, *inventory.Client, *syncBuffer, string) {
	cfg := server.Config(t)
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = infrav1.AddToScheme(scheme)
	inv := httptest.NewServer(inventory.NewServer(token, inventory.Pool(n, []string{"zone-a", "zone-b"})))
	t.Cleanup(inv.Close)
	logs := &syncBuffer{}
	// The manager's own logger, not the global one: reconcilers log
	// through it, and tests do not share it.
	log := funcr.New(logs.write, funcr.Options{})
	skip := true // one manager per test in one process
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Logger: log, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: &skip}})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&ClusterReconciler{Client: mgr.GetClient(), NewClient: inventory.NewClient}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	if err := (&MachineReconciler{Client: mgr.GetClient(), NewClient: inventory.NewClient}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c, inventory.NewClient(inv.URL, token), logs, inv.URL
}

func setup(t *testing.T, c client.Client, ns, url string) {
	ctx := context.Background()
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "inventory-token", Namespace: ns}, Data: map[string][]byte{"token": []byte(token)}},
		&infrav1.InventoryIdentity{ObjectMeta: metav1.ObjectMeta{Name: "inventory", Namespace: ns},
			Spec: infrav1.InventoryIdentitySpec{URL: url, SecretRef: infrav1.ObjectRef{Name: "inventory-token"}}},
		&infrav1.InventoryCluster{ObjectMeta: metav1.ObjectMeta{Name: "dev", Namespace: ns},
			Spec: infrav1.InventoryClusterSpec{IdentityRef: infrav1.ObjectRef{Name: "inventory"}, ControlPlaneEndpoint: infrav1.APIEndpoint{Host: "10.10.0.1", Port: 6443}}},
	} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
}

func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func owner(ms []inventory.Machine, id string) string {
	for _, m := range ms {
		if m.ID == id {
			return m.Owner
		}
	}
	return "?"
}

// TestStandaloneMachine: an InventoryMachine gets a machine, providerID,
// address and readiness at the v1beta2 paths; deleting it returns the
// machine; the token never reaches the logs.
func TestStandaloneMachine(t *testing.T) {
	c, inv, logs, url := start(t, 2)
	ctx := context.Background()
	setup(t, c, "standalone", url)
	var ic infrav1.InventoryCluster
	eventually(t, "the cluster to be provisioned", func() bool {
		_ = c.Get(ctx, types.NamespacedName{Namespace: "standalone", Name: "dev"}, &ic)
		return ic.Status.Initialization.Provisioned != nil && *ic.Status.Initialization.Provisioned
	})
	if len(ic.Status.FailureDomains) != 2 || ic.Status.FailureDomains[0].Name != "zone-a" {
		t.Errorf("failure domains %+v", ic.Status.FailureDomains)
	}
	im := &infrav1.InventoryMachine{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Namespace: "standalone",
		Labels: map[string]string{ClusterNameLabel: "dev"}, Annotations: map[string]string{StandaloneAnnotation: "true"}},
		Spec: infrav1.InventoryMachineSpec{Zone: "zone-b"}}
	if err := c.Create(ctx, im); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(im)
	eventually(t, "providerID and provisioned", func() bool {
		_ = c.Get(ctx, key, im)
		return im.Spec.ProviderID != "" && im.Status.Initialization.Provisioned != nil && *im.Status.Initialization.Provisioned
	})
	id := strings.TrimPrefix(im.Spec.ProviderID, "inventory://")
	ms, _ := inv.Machines(ctx)
	if owner(ms, id) != "standalone/worker-0" || len(im.Status.Addresses) != 1 || im.Status.Addresses[0].Type != "InternalIP" {
		t.Errorf("machine %s: owner %q, addresses %+v", id, owner(ms, id), im.Status.Addresses)
	}
	if err := c.Delete(ctx, im); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the InventoryMachine to be gone", func() bool { return apierrors.IsNotFound(c.Get(ctx, key, im)) })
	ms, _ = inv.Machines(ctx)
	if owner(ms, id) != "" {
		t.Errorf("machine %s not returned: owner %q", id, owner(ms, id))
	}
	if strings.Contains(logs.String(), token) {
		t.Errorf("the inventory token is in the controller's logs")
	}
	if !strings.Contains(logs.String(), "machine claimed from the inventory") {
		t.Errorf("logs: %s", logs.String())
	}
}

// TestOwnedMachineWaitsForBootstrapData: owned by a Cluster API Machine,
// the InventoryMachine waits for the Machine's bootstrap data, as the
// contract asks, then claims.
func TestOwnedMachineWaitsForBootstrapData(t *testing.T) {
	if len(sharedCAPI()) == 0 {
		t.Skip("needs Cluster API's CRDs from ../shared/crds/capi for Machine objects")
	}
	c, _, _, url := start(t, 2)
	ctx := context.Background()
	setup(t, c, "owned", url)
	m := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
		"metadata": map[string]any{"name": "worker-0", "namespace": "owned"},
		"spec": map[string]any{"clusterName": "dev", "bootstrap": map[string]any{"dataSecretName": ""},
			"infrastructureRef": map[string]any{"apiGroup": infrav1.GroupVersion.Group, "kind": "InventoryMachine", "name": "worker-0"}},
	}}
	_ = unstructured.SetNestedField(m.Object, map[string]any{}, "spec", "bootstrap")
	if err := c.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	im := &infrav1.InventoryMachine{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Namespace: "owned", Labels: map[string]string{ClusterNameLabel: "dev"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "Machine", Name: "worker-0", UID: m.GetUID()}}}}
	if err := c.Create(ctx, im); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(im)
	eventually(t, "WaitingForBootstrapData", func() bool {
		_ = c.Get(ctx, key, im)
		for _, cond := range im.Status.Conditions {
			if cond.Reason == "WaitingForBootstrapData" {
				return true
			}
		}
		return false
	})
	if im.Spec.ProviderID != "" {
		t.Fatalf("claimed before the bootstrap data: %s", im.Spec.ProviderID)
	}
	_ = c.Get(ctx, client.ObjectKeyFromObject(m), m)
	_ = unstructured.SetNestedField(m.Object, "worker-0-bootstrap", "spec", "bootstrap", "dataSecretName")
	if err := c.Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	eventually(t, "providerID", func() bool { _ = c.Get(ctx, key, im); return im.Spec.ProviderID != "" })
}
