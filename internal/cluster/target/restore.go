package target

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/crdapply"
	"github.com/k0rdent/kbook/internal/report"
	apiext "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// A page that runs alone (runner.AloneKey: it names a namespace of its
// own or makes cluster-wide objects) may change what was on the cluster
// before it: patch kcm's Management, label namespace default, delete a
// ConfigMap. On a cluster kbook made (the local backend, its k0rdent
// plane, a kind cluster kbook created or keeps), the page's session
// takes a snapshot of the whole objects of every resource the lister
// lists before the page, and after it puts the cluster back:
//
//   - what is new is deleted, as for every runbook (Session.Close);
//   - what the page deleted is re-created from the snapshot, namespaces
//     first, then CRDs (once they serve), then other cluster-wide
//     objects, then namespaced ones, without the fields the API server
//     sets (uid, resourceVersion, creationTimestamp, managedFields,
//     generation) and without status;
//   - what the page changed is put back: an object whose resourceVersion
//     moved is read again and compared by its own content (labels,
//     annotations and every top-level field but metadata and status);
//     when that differs, the saved content is written over the live
//     object, at its resourceVersion, once more on a conflict.
//
// Status is not restored: controllers recompute it. What cannot be put
// back (an immutable field, a write kbook may not make) is said in the
// result (report.Restored.Failed), not a failure of the page. On a
// cluster kbook did not make (--kubeconfig) nothing is restored: others
// may change it at the same time, and kbook cannot tell their changes
// from the page's.

// saved is one object of the snapshot a page that runs alone is restored
// from.
type saved struct {
	object
	u *unstructured.Unstructured
}

// key names an object whatever its UID: a deleted object re-created, or
// one the page replaced, has another.
func (o object) key() string {
	return o.GVR.String() + "|" + o.Namespace + "|" + o.Name
}

// wholeSnapshot lists the whole objects of every resource snapshot lists,
// leaving out those snapshot leaves out (owned by others).
func (l *lister) wholeSnapshot(ctx context.Context) (map[types.UID]saved, error) {
	var (
		mu  sync.Mutex
		out = map[types.UID]saved{}
	)
	err := l.each(ctx, "", func(ctx context.Context, r resource, _ metadataLister) error {
		list, err := l.dyn.Resource(r.gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for i := range list.Items {
			u := &list.Items[i]
			if o, ok := objectOf(r, u); ok {
				out[o.UID] = saved{object: o, u: u}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// objectsOf is the snapshot's objects without their content, as snapshot
// gives them.
func objectsOf(s map[types.UID]saved) map[types.UID]object {
	out := make(map[types.UID]object, len(s))
	for uid, o := range s {
		out[uid] = o.object
	}
	return out
}

// notRestored says why an object of the snapshot is left as the page
// left it, "" when kbook restores it. Each exclusion is something the
// cluster or a controller owns or rewrites by itself, so that putting it
// back would fight them or write what is no longer true:
func notRestored(o object, u *unstructured.Unstructured, deletingNS map[string]bool) string {
	switch {
	case u != nil && len(u.GetOwnerReferences()) > 0:
		// The garbage collector and its owner's controller make and
		// delete it (the listing leaves owned objects out; one the
		// page's controllers adopted is theirs now).
		return "it has an owner"
	case o.Deleting:
		// Already going away before the page: its finalizers' owners
		// are finishing it.
		return "it was being deleted before the page"
	case o.GVR.Group == "" && o.GVR.Resource == "namespaces" && runbookNamespace.MatchString(o.Name),
		runbookNamespace.MatchString(o.Namespace):
		// A runbook's namespace, and what is in it, come and go with
		// their runbook (one that ended before this page may still be
		// terminating on kind).
		return "it is a runbook's namespace"
	case deletingNS[o.Namespace]:
		// Its namespace was being deleted before the page.
		return "its namespace was being deleted before the page"
	case o.GVR.Group == "" && o.GVR.Resource == "secrets" && u != nil && secretType(u) == "kubernetes.io/service-account-token":
		// The token controller writes its token and keeps it in step
		// with its ServiceAccount (whose UID a re-created one changes).
		return "the token controller fills it"
	case o.GVR.Group == "" && o.GVR.Resource == "configmaps" && o.Name == "kube-root-ca.crt":
		// kube-controller-manager's root CA publisher writes it into
		// every namespace.
		return "kube-controller-manager publishes it"
	}
	return ""
}

func secretType(u *unstructured.Unstructured) string {
	t, _, _ := unstructured.NestedString(u.Object, "type")
	return t
}

// ownFields are the top-level fields of an object that are its own
// content, what a page changes and kbook puts back: all but apiVersion,
// kind, metadata (its labels and annotations are compared apart) and
// status, which controllers recompute. The rules of a ClusterRole with an
// aggregationRule are left out too: the aggregation controller writes
// them from the roles it aggregates.
func ownFields(o object, u *unstructured.Unstructured) map[string]any {
	out := map[string]any{}
	for k, v := range u.Object {
		switch k {
		case "apiVersion", "kind", "metadata", "status":
			continue
		}
		out[k] = v
	}
	if o.GVR.Group == "rbac.authorization.k8s.io" && o.GVR.Resource == "clusterroles" && out["aggregationRule"] != nil {
		delete(out, "rules")
	}
	return out
}

// differs reports whether live's own content (labels, annotations,
// ownFields) is not before's: a write of its status, managedFields or
// finalizers alone is no change.
func differs(o object, before, live *unstructured.Unstructured) bool {
	norm := func(m map[string]string) map[string]string {
		if len(m) == 0 {
			return nil
		}
		return m
	}
	return !equality.Semantic.DeepEqual(norm(before.GetLabels()), norm(live.GetLabels())) ||
		!equality.Semantic.DeepEqual(norm(before.GetAnnotations()), norm(live.GetAnnotations())) ||
		!equality.Semantic.DeepEqual(ownFields(o, before), ownFields(o, live))
}

// putBack is live with before's own content written over it: its
// resourceVersion (the update's precondition), status, finalizers and
// owners stay live's.
func putBack(o object, before, live *unstructured.Unstructured) *unstructured.Unstructured {
	out := live.DeepCopy()
	for k := range ownFields(o, live) {
		delete(out.Object, k)
	}
	for k, v := range ownFields(o, before) {
		out.Object[k] = runtime.DeepCopyJSONValue(v)
	}
	out.SetLabels(before.GetLabels())
	out.SetAnnotations(before.GetAnnotations())
	return out
}

// fresh is a saved object as it is created again: without what the API
// server sets on an object it stores, and without status.
func fresh(u *unstructured.Unstructured) *unstructured.Unstructured {
	out := u.DeepCopy()
	delete(out.Object, "status")
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation",
		"deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		unstructured.RemoveNestedField(out.Object, "metadata", f)
	}
	return out
}

// notReplaced leaves out of made (new objects) those whose names are in
// replaced.
func notReplaced(made []object, replaced map[string]bool) []object {
	var out []object
	for _, o := range made {
		if !replaced[o.key()] {
			out = append(out, o)
		}
	}
	return out
}

// restorePlan is what puts the cluster back: objects to re-create, in
// order, and objects whose content may have changed (their version
// moved, or the page replaced them with another of the same name: live
// is then the new one), each a pair of what was saved and what is live.
type restorePlan struct {
	recreate []saved
	changed  []changedObject
	// replaced are the keys of objects the page deleted and made again
	// (a new UID): they are restored as changed, not deleted as new.
	replaced map[string]bool
}

type changedObject struct {
	saved
	live object
}

// planRestore compares the snapshot before the page with the objects
// after it (snapshot's listing).
func planRestore(before map[types.UID]saved, after map[types.UID]object) restorePlan {
	deletingNS := map[string]bool{}
	for _, o := range before {
		if o.Deleting && o.GVR.Group == "" && o.GVR.Resource == "namespaces" {
			deletingNS[o.Name] = true
		}
	}
	live := map[string]object{}
	for _, o := range after {
		live[o.key()] = o
	}
	p := restorePlan{replaced: map[string]bool{}}
	for uid, b := range before {
		if notRestored(b.object, b.u, deletingNS) != "" {
			continue
		}
		a, ok := live[b.key()]
		switch {
		case !ok:
			p.recreate = append(p.recreate, b)
		case a.UID != uid:
			p.replaced[b.key()] = true
			p.changed = append(p.changed, changedObject{b, a})
		case a.ResourceVersion != b.ResourceVersion || a.Deleting:
			p.changed = append(p.changed, changedObject{b, a})
		}
	}
	rank := func(o object) int {
		switch {
		case o.GVR.Group == "" && o.GVR.Resource == "namespaces":
			return 0
		case o.GVR.Group == crdGVR.Group && o.GVR.Resource == crdGVR.Resource:
			return 1
		case o.Namespace == "":
			return 2
		}
		return 3
	}
	sort.Slice(p.recreate, func(i, j int) bool {
		if ri, rj := rank(p.recreate[i].object), rank(p.recreate[j].object); ri != rj {
			return ri < rj
		}
		return p.recreate[i].String() < p.recreate[j].String()
	})
	sort.Slice(p.changed, func(i, j int) bool { return p.changed[i].String() < p.changed[j].String() })
	return p
}

// restore puts back what the page changed and deleted of the objects
// saved before it (after: the objects after it, its new ones already
// deleted), into res.
func (s *Session) restore(ctx context.Context, l *lister, after map[types.UID]object, res *report.Restored) {
	fail := func(o object, what string, err error) {
		res.Failed = append(res.Failed, fmt.Sprintf("%s: %s: %v", o, what, err))
	}
	if s.t.opts.Backend == cluster.Local {
		// Nothing finalizes objects on the local backend: one the page
		// deleted that its finalizers hold (a namespace) would stay
		// terminating for good. kbook finishes deleting it, as it
		// does its own, and re-creates it below.
		finished := false
		for uid, a := range after {
			if b, ok := s.saved[uid]; ok && a.Deleting && !b.Deleting && notRestored(b.object, b.u, nil) == "" {
				var err error
				if a.GVR.Group == "" && a.GVR.Resource == "namespaces" {
					err = s.t.deleteNamespace(ctx, l, a.Name, nil)
				} else {
					err = s.t.deleteObject(ctx, l, a)
				}
				if err != nil {
					fail(a, "finish its deletion", err)
				}
				finished = true
			}
		}
		if finished {
			var err error
			if after, err = l.snapshot(ctx, ""); err != nil {
				fail(object{GVR: crdGVR, Name: "*"}, "list the cluster's objects", err)
				return
			}
		}
	}
	p := planRestore(s.saved, after)
	remade := map[types.UID]object{} // old UID -> the object live now
	lostNS := map[string]bool{}      // namespaces that could not be re-created
	for _, o := range p.recreate {
		if lostNS[o.Namespace] {
			fail(o.object, "re-create", fmt.Errorf("its namespace could not be re-created"))
			continue
		}
		u, err := l.dyn.Resource(o.GVR).Namespace(o.Namespace).Create(ctx, fresh(o.u), metav1.CreateOptions{})
		if err != nil {
			fail(o.object, "re-create", err)
			if o.GVR.Group == "" && o.GVR.Resource == "namespaces" {
				lostNS[o.Name] = true
			}
			continue
		}
		if o.GVR == crdGVR {
			if err := s.awaitEstablished(ctx, o.Name); err != nil {
				fail(o.object, "re-create", err)
				continue
			}
		}
		res.Recreated.Add(o.String())
		now := o.object
		now.UID, now.ResourceVersion = u.GetUID(), u.GetResourceVersion()
		remade[o.UID] = now
	}
	for _, c := range p.changed {
		ri := l.dyn.Resource(c.GVR).Namespace(c.Namespace)
		put := false
		var err error
		for try := 0; try < 2; try++ {
			var live *unstructured.Unstructured
			if live, err = ri.Get(ctx, c.Name, metav1.GetOptions{}); err != nil {
				break
			}
			if live.GetDeletionTimestamp() != nil {
				err = fmt.Errorf("it is being deleted (its finalizers hold it)")
				break
			}
			if len(live.GetOwnerReferences()) > 0 || !differs(c.object, c.u, live) {
				break // adopted by a controller, or only its status moved
			}
			if _, err = ri.Update(ctx, putBack(c.object, c.u, live), metav1.UpdateOptions{}); err == nil {
				put = true
				break
			}
			if !apierrors.IsConflict(err) {
				break
			}
		}
		switch {
		case err != nil:
			fail(c.object, "put back", err)
		case put:
			res.Changed.Add(c.String())
		}
		if c.live.UID != c.UID {
			remade[c.UID] = c.live
		}
	}
	if len(remade) > 0 {
		// The run's snapshot (parallel runs on a cluster that
		// outlives the run) knows these by their old UIDs: without
		// this, the run's cleanup would delete them as new.
		s.t.mu.Lock()
		if s.t.before != nil {
			for old, now := range remade {
				if _, ok := s.t.before[old]; ok {
					delete(s.t.before, old)
					s.t.before[now.UID] = now
				}
			}
		}
		s.t.mu.Unlock()
	}
}

// establishTimeout bounds the wait for a re-created CRD to serve.
const establishTimeout = 30 * time.Second

// awaitEstablished waits until the CRD name serves its resources, so that
// its custom resources can be re-created.
func (s *Session) awaitEstablished(ctx context.Context, name string) error {
	cs, err := apiext.NewForConfig(cluster.FastConfig(s.t.cluster.RESTConfig()))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, establishTimeout)
	defer cancel()
	return crdapply.AwaitEstablished(ctx, cs.ApiextensionsV1().CustomResourceDefinitions(), name, 20*time.Millisecond)
}
