package crdapply

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func crd(name, group string) *apiextv1.CustomResourceDefinition {
	return &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       apiextv1.CustomResourceDefinitionSpec{Group: group},
	}
}

// TestApply: the first apply creates, the next updates the server's CRD
// (its resourceVersion taken from the server) and leaves the caller's
// object unchanged.
func TestApply(t *testing.T) {
	ctx := context.Background()
	api := fake.NewSimpleClientset().ApiextensionsV1().CustomResourceDefinitions()
	created, err := Apply(ctx, api, crd("widgets.example.com", "example.com"))
	if err != nil || !created {
		t.Fatalf("first Apply = %v, %v; want created", created, err)
	}
	cur, err := api.Get(ctx, "widgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.ResourceVersion = "7"
	if _, err := api.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	next := crd("widgets.example.com", "changed.example.com")
	next.ResourceVersion = "stale"
	created, err = Apply(ctx, api, next)
	if err != nil || created {
		t.Fatalf("second Apply = %v, %v; want updated", created, err)
	}
	if got, _ := api.Get(ctx, "widgets.example.com", metav1.GetOptions{}); got.Spec.Group != "changed.example.com" {
		t.Errorf("the server's CRD has group %q, want the update's", got.Spec.Group)
	}
	if next.ResourceVersion != "stale" {
		t.Errorf("Apply changed the caller's object (resourceVersion %q)", next.ResourceVersion)
	}
}

// TestAwaitEstablished: an established CRD returns at once; one that is
// not, or is missing, returns when ctx ends, saying what it saw last.
func TestAwaitEstablished(t *testing.T) {
	ready := crd("ready.example.com", "example.com")
	ready.Status.Conditions = []apiextv1.CustomResourceDefinitionCondition{{Type: apiextv1.Established, Status: apiextv1.ConditionTrue}}
	pending := crd("pending.example.com", "example.com")
	pending.Status.Conditions = []apiextv1.CustomResourceDefinitionCondition{{Type: apiextv1.Established, Status: apiextv1.ConditionFalse}}
	api := fake.NewSimpleClientset(ready, pending).ApiextensionsV1().CustomResourceDefinitions()
	if !Established(ready) || Established(pending) {
		t.Fatal("Established misreads the condition")
	}
	if err := AwaitEstablished(context.Background(), api, "ready.example.com", time.Hour); err != nil {
		t.Errorf("an established CRD: %v", err)
	}
	why := errors.New("the test stopped it")
	for name, want := range map[string]string{"pending.example.com": "not established yet", "missing.example.com": "not found"} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(why)
		err := AwaitEstablished(ctx, api, name, time.Hour)
		if !errors.Is(err, why) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want its name, %q and the cause", name, err, want)
		}
	}
}
