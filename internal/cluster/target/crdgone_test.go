package target

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/cluster"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// crdGoneRuns counts TestCloseWaitsForCRDs's runs in this process.
var crdGoneRuns int

// TestCloseWaitsForCRDs: a CRD the runbook installed is gone when Close
// returns, even with a custom resource whose finalizer nobody will remove
// (its controller stopped with the runbook) and which the cleanup leaves
// to its owner (the local server has no garbage collector), so that the next runbook can
// install it again: the soak once lost proprietary-provider.md to a CRD
// of custom-provider.md still terminating ("configured", then gone).
func TestCloseWaitsForCRDs(t *testing.T) {
	c := startLocal(t)
	ctx := t.Context()
	crdGoneRuns++
	group := fmt.Sprintf("gone%d.kbook.example", crdGoneRuns)
	tg, err := New(ctx, cluster.Options{Backend: cluster.Local}, WithCluster(c))
	if err != nil {
		t.Fatal(err)
	}
	tg.opts.Backend = cluster.Local
	s, err := tg.Prepare(ctx, clusterRunbook("runbooks/crd-gone.md"), newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	ns := s.(*Session).Namespace()

	ext := apiextclient.NewForConfigOrDie(c.RESTConfig())
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTrue()}},
			}},
		},
	}
	if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}
	dc := dynamic.NewForConfigOrDie(c.RESTConfig())
	// The widget is owned (as a controller's objects are), so the cleanup
	// leaves it to its owner's deletion, and has a finalizer.
	owner, err := kubernetes.NewForConfigOrDie(c.RESTConfig()).CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/v1", "kind": "Widget",
		"metadata": map[string]any{
			"name": "w", "finalizers": []any{"kbook.example/never"},
			"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": owner.Name, "uid": string(owner.UID)}},
		},
	}}
	// The CRD serves once it is established: create the widget as soon as
	// the server takes it.
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := dc.Resource(gvr).Namespace(ns).Create(ctx, w, metav1.CreateOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatalf("create a widget: %v", err)
	}

	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("CRD %s still there when Close returned (err %v)", crd.Name, err)
	}
}

func ptrTrue() *bool { b := true; return &b }
