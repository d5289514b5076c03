package schema_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/schema"
	"github.com/k0rdent/kbook/internal/testctx"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// apiServer is the one API server of this test binary, with the CRDs the
// offline validator loads.
var apiServer = apitest.New(crdDirs()...)

func TestMain(m *testing.M) {
	code := m.Run()
	apiServer.Stop()
	os.Exit(code)
}

// needAPIServer returns the config of the API server, or skips t.
func needAPIServer(t *testing.T) *rest.Config {
	t.Helper()
	return apiServer.Config(t)
}

// TestAgainstAPIServer creates every fixture with a server-side dry run and
// checks that the API server rejects exactly the fixtures Validate rejects,
// and for the same fields when the server says which.
func TestAgainstAPIServer(t *testing.T) {
	cfg := needAPIServer(t)
	v := validator(t)
	ctx := context.Background()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := restmapper.GetAPIGroupResources(disco)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	namespaces := map[string]bool{}

	checked := map[string]int{}
	for _, name := range fixtureFiles(t) {
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			obj := readObject(t, filepath.Join(objectsDir, name))
			gvk := obj.GroupVersionKind()
			mapping, err := mapper.RESTMapping(gvk.GroupKind())
			if err != nil {
				needShared(t) // the shared CRDs are not installed
				t.Fatalf("no resource for %s: %v", gvk.GroupKind(), err)
			}
			gvr := gvk.GroupVersion().WithResource(mapping.Resource.Resource)
			var ri dynamic.ResourceInterface = dyn.Resource(gvr)
			if mapping.Scope.Name() == "namespace" {
				ns := obj.GetNamespace()
				if ns == "" {
					ns = "default"
				}
				if !namespaces[ns] {
					_, err := core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
					if err != nil && !apierrors.IsAlreadyExists(err) {
						t.Fatal(err)
					}
					namespaces[ns] = true
				}
				ri = dyn.Resource(gvr).Namespace(ns)
			}

			errs := v.Validate(obj)
			_, serverErr := ri.Create(ctx, obj, metav1.CreateOptions{
				DryRun:          []string{metav1.DryRunAll},
				FieldValidation: metav1.FieldValidationStrict,
			})
			t.Logf("server: %v", serverErr)
			t.Logf("Validate: %v", errs.ToAggregate())
			switch {
			case serverErr == nil && len(errs) > 0:
				t.Errorf("the API server accepts %s, Validate rejects it: %v", name, errs.ToAggregate())
			case serverErr != nil && len(errs) == 0:
				t.Errorf("the API server rejects %s, Validate accepts it: %v", name, serverErr)
			case serverErr != nil:
				compareFields(t, serverErr, errs)
			}
			checked[gvk.Group]++
		})
	}
	if haveShared() && (checked["k0rdent.mirantis.com"] == 0 || checked["cluster.x-k8s.io"] == 0) {
		t.Errorf("checked fixtures by group: %v; want k0rdent ClusterTemplates and CAPI Clusters", checked)
	}
}

// compareFields checks that an Invalid response of the server names the
// fields Validate names. A strict decoding error (unknown fields) is a Bad
// Request whose message names them.
func compareFields(t *testing.T, serverErr error, errs field.ErrorList) {
	t.Helper()
	status, ok := serverErr.(apierrors.APIStatus)
	if !ok {
		t.Errorf("server error %T: %v", serverErr, serverErr)
		return
	}
	st := status.Status()
	var ours []string
	for _, e := range errs {
		ours = append(ours, e.Field)
	}
	switch st.Reason {
	case metav1.StatusReasonInvalid:
		var theirs []string
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				theirs = append(theirs, c.Field)
			}
		}
		if !reflect.DeepEqual(ours, theirs) {
			t.Errorf("the server reports the fields %q, Validate %q", theirs, ours)
		}
	case metav1.StatusReasonBadRequest:
		for _, e := range errs {
			if e.Type == field.ErrorTypeForbidden && !strings.Contains(st.Message, e.Detail) {
				t.Errorf("the server says %q, without %q", st.Message, e.Detail)
			}
		}
	case metav1.StatusReasonNotFound: // a version that is not served
	default:
		t.Errorf("server error %s: %v", st.Reason, serverErr)
	}
}

// TestFromCluster reads the CRDs back from the API server and checks that
// the Validator it builds knows the same kinds and returns the same errors.
func TestFromCluster(t *testing.T) {
	cfg := needAPIServer(t)
	fromFiles := validator(t)
	ctx, cancel := testctx.New(t)
	defer cancel()
	fromCluster, err := schema.FromCluster(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fromCluster.Kinds(), fromFiles.Kinds(); !reflect.DeepEqual(got, want) {
		t.Errorf("FromCluster kinds:\n%v\nFromFiles kinds:\n%v", got, want)
	}
	for _, name := range fixtureFiles(t) {
		obj := readObject(t, filepath.Join(objectsDir, name))
		if !fromFiles.Has(obj.GroupVersionKind()) {
			continue
		}
		got, want := fromCluster.Validate(obj).ToAggregate(), fromFiles.Validate(obj).ToAggregate()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: FromCluster: %v\nFromFiles: %v", name, got, want)
		}
	}

	bad := rest.CopyConfig(cfg)
	bad.Host = "https://127.0.0.1:1"
	if _, err := schema.FromCluster(ctx, bad); err == nil || !strings.Contains(err.Error(), "schema: list CustomResourceDefinitions at https://127.0.0.1:1") {
		t.Errorf("unreachable cluster: err = %v", err)
	}
}
