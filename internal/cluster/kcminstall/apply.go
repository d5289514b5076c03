package kcminstall

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/k0rdent/kbook/internal/dynclient"
)

// fieldManager owns what kbook applies.
const fieldManager = "kbook"

// applier applies objects with server-side apply.
type applier struct {
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
	cs     kubernetes.Interface
}

func newApplier(cfg *rest.Config) (*applier, error) {
	dc, err := dynclient.New(cfg)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &applier{dyn: dc.Dynamic, cs: cs, mapper: dc.Mapper}, nil
}

// apply applies objs in order; a kind whose CRD the same batch created is
// retried until the API server serves it.
func (a *applier) apply(ctx context.Context, objs []*unstructured.Unstructured) error {
	for _, o := range objs {
		if err := poll(ctx, time.Second, func() (bool, error) {
			err := a.applyOne(ctx, o)
			if meta.IsNoMatchError(err) {
				a.mapper.Reset()
				return false, nil
			}
			return err == nil, err
		}); err != nil {
			return fmt.Errorf("apply %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return nil
}

func (a *applier) applyOne(ctx context.Context, o *unstructured.Unstructured) error {
	gvk := o.GroupVersionKind()
	m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return err
	}
	data, err := json.Marshal(o.Object)
	if err != nil {
		return err
	}
	var r dynamic.ResourceInterface = a.dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		r = a.dyn.Resource(m.Resource).Namespace(o.GetNamespace())
	}
	force := true
	_, err = r.Patch(ctx, o.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: fieldManager, Force: &force})
	return err
}

// ensureNamespace creates ns unless it exists.
func (a *applier) ensureNamespace(ctx context.Context, ns string) error {
	_, err := a.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// deploymentsAvailable waits until every Deployment of ns named in names
// is Available, saying why not when ctx ends first.
func (a *applier) deploymentsAvailable(ctx context.Context, ns string, names ...string) error {
	why := ""
	err := poll(ctx, 2*time.Second, func() (bool, error) {
		for _, n := range names {
			d, err := a.cs.AppsV1().Deployments(ns).Get(ctx, n, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				why = "Deployment " + n + " does not exist yet"
				return false, nil
			}
			if err != nil {
				return false, err
			}
			if !available(d) {
				why = "Deployment " + n + " is not Available: " + a.podProblems(ctx, ns, d)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil && why != "" {
		return fmt.Errorf("%w (%s)", err, why)
	}
	return err
}

func available(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
			return d.Status.ObservedGeneration >= d.Generation
		}
	}
	return false
}

// podProblems says what keeps a Deployment's pods from running.
func (a *applier) podProblems(ctx context.Context, ns string, d *appsv1.Deployment) string {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return err.Error()
	}
	pods, err := a.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return err.Error()
	}
	if len(pods.Items) == 0 {
		return "no pods"
	}
	for _, p := range pods.Items {
		for _, s := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
			if w := s.State.Waiting; w != nil {
				return fmt.Sprintf("pod %s container %s: %s %s", p.Name, s.Name, w.Reason, w.Message)
			}
			if t := s.LastTerminationState.Terminated; t != nil {
				return fmt.Sprintf("pod %s container %s exited %d: %s", p.Name, s.Name, t.ExitCode, t.Message)
			}
		}
		for _, c := range p.Status.Conditions {
			if c.Status != corev1.ConditionTrue && c.Message != "" {
				return fmt.Sprintf("pod %s: %s", p.Name, c.Message)
			}
		}
	}
	return "pods starting"
}

// poll calls try every interval until it is done, fails, or ctx ends.
func poll(ctx context.Context, interval time.Duration, try func() (bool, error)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		done, err := try()
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
