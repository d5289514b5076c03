package target

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/k0rdent/kbook/internal/cluster"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// object identifies one live object.
type object struct {
	GVR       schema.GroupVersionResource
	Kind      string
	Namespace string
	Name      string
	UID       types.UID
	// ResourceVersion changes with every write of the object (its
	// status's too): an object whose version is the same is unchanged.
	ResourceVersion string
	// Deleting is true once the object is being deleted (its finalizers
	// hold it).
	Deleting bool
	// Managers are the field managers of its managedFields entries: who
	// wrote it (attribute.go).
	Managers []string
}

func (o object) String() string {
	res := o.GVR.Resource
	if o.GVR.Group != "" {
		res += "." + o.GVR.Group
	}
	if o.Namespace != "" {
		return fmt.Sprintf("%s/%s -n %s", res, o.Name, o.Namespace)
	}
	return res + "/" + o.Name
}

// ignored are resources whose objects the cluster makes by itself or that
// cannot be meaningfully deleted.
var ignored = map[string]bool{
	"events": true, "events.events.k8s.io": true, "endpoints": true,
	"endpointslices.discovery.k8s.io": true, "leases.coordination.k8s.io": true,
	"componentstatuses": true, "nodes": true, "apiservices.apiregistration.k8s.io": true,
	"flowschemas.flowcontrol.apiserver.k8s.io": true, "prioritylevelconfigurations.flowcontrol.apiserver.k8s.io": true,
	"ipaddresses.networking.k8s.io": true, "servicecidrs.networking.k8s.io": true,
}

// lister lists objects of every deletable resource type.
type lister struct {
	disc discovery.DiscoveryInterface
	meta metadata.Interface
	// dyn lists whole objects, for the snapshot a page that runs alone
	// is restored from (restore.go).
	dyn dynamic.Interface
	// etcd is the local server's etcd (cluster.EtcdURL; "" for other
	// clusters): asked which custom resources hold objects, so that only
	// those are listed (storedCRs).
	etcd string
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func newLister(cfg *rest.Config, etcd string) (*lister, error) {
	cfg = cluster.FastConfig(cfg)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	mc, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &lister{disc: dc, meta: mc, dyn: dyn, etcd: etcd}, nil
}

type resource struct {
	gvr        schema.GroupVersionResource
	kind       string
	namespaced bool
}

// resources lists the preferred version of every resource that can be
// listed and deleted.
func (l *lister) resources() ([]resource, error) {
	lists, err := l.disc.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return nil, fmt.Errorf("discover resources: %w", err)
	}
	var out []resource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !hasVerbs(r.Verbs, "list", "delete") {
				continue
			}
			full := r.Name
			if gv.Group != "" {
				full += "." + gv.Group
			}
			if ignored[full] {
				continue
			}
			out = append(out, resource{gvr: gv.WithResource(r.Name), kind: r.Kind, namespaced: r.Namespaced})
		}
	}
	return out, nil
}

func hasVerbs(have metav1.Verbs, want ...string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

// snapshot lists every object in namespace ns ("" for all namespaces and
// cluster-scoped objects), leaving out objects owned by others (the
// garbage collector follows their owners).
func (l *lister) snapshot(ctx context.Context, ns string) (map[types.UID]object, error) {
	var (
		mu  sync.Mutex
		out = map[types.UID]object{}
	)
	err := l.each(ctx, ns, func(ctx context.Context, r resource, ri metadataLister) error {
		list, err := ri.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for i := range list.Items {
			if o, ok := objectOf(r, &list.Items[i]); ok {
				out[o.UID] = o
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// objectOf is a listed object of resource r as a snapshot holds it; ok is
// false for one owned by others (the garbage collector follows their
// owners), which snapshots leave out.
func objectOf(r resource, m metav1.Object) (o object, ok bool) {
	if len(m.GetOwnerReferences()) > 0 {
		return object{}, false
	}
	o = object{GVR: r.gvr, Kind: r.kind, Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID(),
		ResourceVersion: m.GetResourceVersion(), Deleting: m.GetDeletionTimestamp() != nil}
	for _, f := range m.GetManagedFields() {
		o.Managers = append(o.Managers, f.Manager)
	}
	return o, true
}

type metadataLister interface {
	List(context.Context, metav1.ListOptions) (*metav1.PartialObjectMetadataList, error)
}

// each calls list for every resource that may hold objects in namespace
// ns ("" for all namespaces and cluster-scoped resources), with a client
// of its metadata in ns. Lists run 16 at a time: the first list of a
// freshly installed CRD can take a second. A resource that is gone or
// that kbook may not list is left out.
func (l *lister) each(ctx context.Context, ns string, list func(context.Context, resource, metadataLister) error) error {
	rs, err := l.resources()
	if err != nil {
		return err
	}
	empty := l.emptyCRs(ctx, ns)
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		sem  = make(chan struct{}, 16)
	)
	for _, r := range rs {
		if (ns != "" && !r.namespaced) || empty(r) {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(r resource) {
			defer func() { <-sem; wg.Done() }()
			var ri metadataLister = l.meta.Resource(r.gvr)
			if r.namespaced {
				ri = l.meta.Resource(r.gvr).Namespace(ns)
			}
			err := list(ctx, r, ri)
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) && !apierrors.IsForbidden(err) {
				mu.Lock()
				errs = append(errs, fmt.Errorf("list %s: %w", r.gvr.Resource, err))
				mu.Unlock()
			}
		}(r)
	}
	wg.Wait()
	return errors.Join(errs...)
}

// emptyCRs reports the custom resources that etcd holds no objects of
// (in namespace ns, unless ""): nothing to list. Without etcd, or when it
// cannot say, every resource is listed.
func (l *lister) emptyCRs(ctx context.Context, ns string) func(resource) bool {
	none := func(resource) bool { return false }
	if l.etcd == "" {
		return none
	}
	list, err := l.meta.Resource(crdGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return none
	}
	have, err := storedCRs(ctx, l.etcd)
	if err != nil {
		return none
	}
	crds := map[string]bool{}
	for _, c := range list.Items {
		crds[c.Name] = true
	}
	return func(r resource) bool {
		if !crds[r.gvr.Resource+"."+r.gvr.Group] {
			return false
		}
		key := r.gvr.Group + "/" + r.gvr.Resource
		if ns != "" {
			key += "/" + ns
		}
		return !have[key]
	}
}

// created returns the objects in after that are not in before, except
// those inside the skipped namespaces (deleted with their namespace) and
// namespaced objects in namespaces that are themselves new. Namespaced
// objects come first, cluster-scoped ones next and CRDs last: the order to
// delete them in.
func created(before, after map[types.UID]object, skip map[string]bool) []object {
	newNS := map[string]bool{}
	for uid, o := range after {
		if _, old := before[uid]; !old && o.GVR.Resource == "namespaces" && o.GVR.Group == "" {
			newNS[o.Name] = true
		}
	}
	var out []object
	for uid, o := range after {
		if _, old := before[uid]; old || skip[o.Namespace] || newNS[o.Namespace] {
			continue
		}
		if o.GVR.Resource == "namespaces" && skip[o.Name] {
			continue
		}
		out = append(out, o)
	}
	rank := func(o object) int {
		switch {
		case o.Namespace != "":
			return 0
		case o.GVR.Resource == "customresourcedefinitions":
			return 2
		}
		return 1
	}
	sort.Slice(out, func(i, j int) bool {
		if ri, rj := rank(out[i]), rank(out[j]); ri != rj {
			return ri < rj
		}
		return out[i].String() < out[j].String()
	})
	return out
}
