package plane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/plane/releasecrds"
	"github.com/k0rdent/kbook/internal/k0rdent"
	apiext "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// Kinds whose status kcm writes from what it observes: a restored plane's
// copy is cleared, so that Ready is what the running kcm has found again,
// never a stale status taken from the snapshot.
var kcmStatusGVRs = []schema.GroupVersionResource{managementGVR, releaseGVR, ptGVR}

// fluxGVRs are the Flux objects of the bootstrap (in the system
// namespace), which a restored plane's Flux controllers must reconcile
// again: source-controller's storage is empty, its address new.
var fluxGVRs = []schema.GroupVersionResource{k0rdent.HelmRepositoryGVR, k0rdent.HelmChartGVR, k0rdent.HelmReleaseGVR}

// rewire adapts the state a snapshot restored to this run before any
// controller starts: the conversion webhooks of the CRDs point at this
// run's ports and CA (crds are wired already; nothing to do when the
// plane reused the snapshot's Wiring: each patch has kube-apiserver
// rebuild that CRD's handlers and OpenAPI, seconds of its CPU), the previous run's
// admission webhook configurations go (they name its ports; this run's
// are applied as its controllers start) and so do its leader-election
// leases, kcm's statuses are cleared, and
// every Flux object is asked to reconcile (token) with the templates'
// HelmRepository pointing at this run's repository.
func (p *Plane) rewire(ctx context.Context, crds []releasecrds.CRD, token string) error {
	begin := time.Now()
	cfg := p.opts.RESTConfig
	ac, err := apiext.NewForConfig(cfg)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	// First, all at once, what depends on nothing else: the conversion
	// patches, the previous run's webhook configurations and leases, and
	// the lists of kcm's and Flux's objects. (The first request for a
	// custom resource after the restore makes kube-apiserver set up that
	// CRD's storage, most of a second each under load: one after the
	// other, the six lists took 5 s.)
	var patched int
	first := []func() error{
		func() (err error) {
			if !p.rewired {
				patched, err = patchConversions(ctx, ac, crds)
			}
			return err
		},
		func() error { return deleteWebhooks(ctx, cs) },
		// kcm always elects a leader (cmd/main.go: LeaderElection true,
		// not released when it stops): the previous run's lease would
		// keep this run's kcm waiting until it expires.
		func() error {
			if err := cs.CoordinationV1().Leases(k0rdent.SystemNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
				return fmt.Errorf("rewire: the previous run's leases: %w", err)
			}
			return nil
		},
	}
	gvrs := append(slices.Clone(kcmStatusGVRs), fluxGVRs...)
	lists := make([]*unstructured.UnstructuredList, len(gvrs))
	for i, gvr := range gvrs {
		// kcm's kinds in every namespace (they are cluster-scoped or
		// anywhere), Flux's in the system namespace, where kcm puts them.
		ns := ""
		if i >= len(kcmStatusGVRs) {
			ns = k0rdent.SystemNamespace
		}
		r := dc.Resource(gvr).Namespace(ns)
		first = append(first, func() (err error) {
			if lists[i], err = r.List(ctx, metav1.ListOptions{}); err != nil {
				return fmt.Errorf("rewire: list %s: %w", gvr.Resource, err)
			}
			return nil
		})
	}
	if err := atOnce(len(first), first); err != nil {
		return err
	}
	// Then the status clears and reconcile requests, which do not depend
	// on each other, eight at a time.
	var jobs []func() error
	cleared, asked := 0, 0
	for i, gvr := range kcmStatusGVRs {
		for _, o := range lists[i].Items {
			jobs = append(jobs, func() error {
				if _, err := dc.Resource(gvr).Patch(ctx, o.GetName(), types.MergePatchType, []byte(`{"status":null}`), metav1.PatchOptions{}, "status"); err != nil {
					return fmt.Errorf("rewire: clear the status of %s %s: %w", o.GetKind(), o.GetName(), err)
				}
				return nil
			})
			cleared++
		}
	}
	for i, gvr := range fluxGVRs {
		r := dc.Resource(gvr).Namespace(k0rdent.SystemNamespace)
		for _, o := range lists[len(kcmStatusGVRs)+i].Items {
			m := map[string]any{"metadata": map[string]any{"annotations": map[string]any{k0rdent.FluxReconcileRequestAnnotation: token}}}
			if gvr == k0rdent.HelmRepositoryGVR && o.GetName() == k0rdent.TemplatesRepoName {
				m["spec"] = map[string]any{"url": p.repo.URL()}
			}
			patch, err := json.Marshal(m)
			if err != nil {
				return err
			}
			jobs = append(jobs, func() error {
				if _, err := r.Patch(ctx, o.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
					return fmt.Errorf("rewire: %s %s: %w", o.GetKind(), o.GetName(), err)
				}
				// The artifacts are gone with the previous run's storage:
				// helm-controller, finding one in a HelmChart's status,
				// would fetch it from a dead port with retries for
				// minutes. Without it, it waits until source-controller
				// has built the new one. (After the request: the
				// controller is not running yet, so nothing rewrites it
				// between the two.)
				if gvr != k0rdent.HelmReleaseGVR {
					if _, err := r.Patch(ctx, o.GetName(), types.MergePatchType, []byte(`{"status":{"artifact":null,"url":null}}`), metav1.PatchOptions{}, "status"); err != nil {
						return fmt.Errorf("rewire: the artifact of %s %s: %w", o.GetKind(), o.GetName(), err)
					}
				}
				return nil
			})
			asked++
		}
	}
	if err := atOnce(8, jobs); err != nil {
		return err
	}
	conv := fmt.Sprintf("%d CRDs' conversion webhooks", patched)
	if p.rewired {
		conv = "the snapshot's webhook ports and CA reused (no CRD patched)"
	}
	p.opts.Logger.Infof("rewired the restored plane in %s: %s, %d kcm statuses cleared, %d Flux objects asked to reconcile", time.Since(begin).Round(time.Millisecond), conv, cleared, asked)
	return nil
}

// patchConversions points the conversion webhooks of the CRDs that have
// one at this run's controllers (crds are wired already), eight requests
// at a time: each makes kube-apiserver rebuild that CRD's handlers, which
// one after the other took seconds under load. It returns how many.
func patchConversions(ctx context.Context, ac apiext.Interface, crds []releasecrds.CRD) (int, error) {
	var jobs []func() error
	for _, c := range crds {
		if c.ConversionBy == "" {
			continue
		}
		patch, err := json.Marshal(map[string]any{"spec": map[string]any{"conversion": c.Object.Spec.Conversion}})
		if err != nil {
			return 0, err
		}
		jobs = append(jobs, func() error {
			if _, err := ac.ApiextensionsV1().CustomResourceDefinitions().Patch(ctx, c.Object.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
				return fmt.Errorf("rewire CRD %s: %w", c.Object.Name, err)
			}
			return nil
		})
	}
	return len(jobs), atOnce(8, jobs)
}

// atOnce runs jobs, n at a time, and joins their errors.
func atOnce(n int, jobs []func() error) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, n)
	)
	for _, job := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := job(); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// deleteWebhooks deletes the admission webhook configurations a plane
// made (named kbook-<controller>-...).
func deleteWebhooks(ctx context.Context, cs kubernetes.Interface) error {
	mut, val := cs.AdmissionregistrationV1().MutatingWebhookConfigurations(), cs.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	ml, err := mut.List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("rewire: list webhook configurations: %w", err)
	}
	vl, err := val.List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("rewire: list webhook configurations: %w", err)
	}
	del := map[string]func(context.Context, string, metav1.DeleteOptions) error{}
	for _, c := range ml.Items {
		del["mutating "+c.Name] = mut.Delete
	}
	for _, c := range vl.Items {
		del["validating "+c.Name] = val.Delete
	}
	for key, d := range del {
		_, name, _ := strings.Cut(key, " ")
		if !strings.HasPrefix(name, "kbook-") {
			continue
		}
		if err := d(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("rewire: webhook configuration %s: %w", name, err)
		}
	}
	return nil
}

// resynced waits until the Flux controllers have reconciled every Flux
// object of the bootstrap after rewire asked them to (token): each one's
// status.lastHandledReconcileAt is the token, its observedGeneration its
// generation, its artifact (if any) served by this run's storage and its
// Ready condition True. Only then has source-controller rebuilt the
// artifacts in this run's storage and helm-controller found each release
// installed with them.
func (p *Plane) resynced(ctx context.Context, token string) error {
	dc, err := dynamic.NewForConfig(p.opts.RESTConfig)
	if err != nil {
		return err
	}
	return poll(ctx, func() (bool, string, error) {
		var pending []string
		for _, gvr := range fluxGVRs {
			list, err := dc.Resource(gvr).Namespace(k0rdent.SystemNamespace).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err.Error(), nil
			}
			for i := range list.Items {
				if why := fluxPending(&list.Items[i], token, p.storageAddr); why != "" {
					pending = append(pending, list.Items[i].GetKind()+" "+list.Items[i].GetName()+": "+why)
				}
			}
		}
		return len(pending) == 0, strings.Join(pending, "; "), nil
	})
}

// fluxPending says why a Flux object has not been reconciled since the
// request token, or "": storage is source-controller's address in this
// run.
func fluxPending(o *unstructured.Unstructured, token, storage string) string {
	handled, _, _ := unstructured.NestedString(o.Object, "status", "lastHandledReconcileAt")
	observed, _, _ := unstructured.NestedInt64(o.Object, "status", "observedGeneration")
	artifact, _, _ := unstructured.NestedString(o.Object, "status", "artifact", "url")
	switch {
	case handled != token:
		return "not reconciled since the restore"
	case observed != o.GetGeneration():
		return fmt.Sprintf("generation %d not observed yet (%d)", o.GetGeneration(), observed)
	case artifact != "" && !strings.HasPrefix(artifact, "http://"+storage+"/"):
		return "artifact " + artifact + " is not in this run's storage"
	case !conditionTrue(o, "Ready"):
		return "not Ready: " + conditionMessages(o)
	}
	return ""
}

// restoreToken is the reconcile request rewire makes of the Flux
// controllers: unique per start.
func restoreToken() string { return "kbook-restore-" + time.Now().UTC().Format(time.RFC3339Nano) }
