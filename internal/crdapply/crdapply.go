package crdapply

import (
	"context"
	"fmt"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Apply creates crd, or updates to it the CRD of that name the server
// has already (its resourceVersion taken from the server's; crd itself
// is not changed). created says it was created; on an error it is false.
func Apply(ctx context.Context, api apiextclient.CustomResourceDefinitionInterface, crd *apiextv1.CustomResourceDefinition) (created bool, err error) {
	obj := crd.DeepCopy()
	obj.ResourceVersion = ""
	_, err = api.Create(ctx, obj, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		return err == nil, err
	}
	cur, err := api.Get(ctx, obj.Name, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	obj.ResourceVersion = cur.ResourceVersion
	_, err = api.Update(ctx, obj, metav1.UpdateOptions{})
	return false, err
}

// Established says whether the server serves the CRD: its Established
// condition is true.
func Established(c *apiextv1.CustomResourceDefinition) bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == apiextv1.Established && cond.Status == apiextv1.ConditionTrue {
			return true
		}
	}
	return false
}

// AwaitEstablished waits until the CRD name is established, looking every
// interval, or until ctx ends: then the error says what it saw last (an
// error reading it, or that it is not established yet).
func AwaitEstablished(ctx context.Context, api apiextclient.CustomResourceDefinitionInterface, name string, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		cur, err := api.Get(ctx, name, metav1.GetOptions{})
		if err == nil && Established(cur) {
			return nil
		}
		last := "not established yet"
		if err != nil {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("CRD %s is not established (%s): %w", name, last, context.Cause(ctx))
		case <-t.C:
		}
	}
}
