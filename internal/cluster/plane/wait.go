package plane

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/k0rdent"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// waitFor waits until done says so of the cluster-scoped object name,
// looking again each time it changes and at least every second.
func waitFor(ctx context.Context, r dynamic.NamespaceableResourceInterface, name string, done func(*unstructured.Unstructured) (bool, string)) error {
	last := ""
	for {
		o, err := r.Get(ctx, name, metav1.GetOptions{})
		rv := ""
		if err == nil {
			ok, why := done(o)
			if ok {
				return nil
			}
			last, rv = why, o.GetResourceVersion()
		} else {
			last = err.Error()
		}
		if err := changed(ctx, r, name, rv); err != nil {
			return fmt.Errorf("not ready: %s (%w)", strings.TrimSpace(last), err)
		}
	}
}

// changed returns when the object name changes after resourceVersion rv
// (watched: the controllers' status updates end it at once), after a
// second at the latest (done may look at other objects, and a watch can
// end or fail: the caller looks again), or with ctx's error.
func changed(ctx context.Context, r dynamic.NamespaceableResourceInterface, name, rv string) error {
	wctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if rv != "" {
		if w, err := r.Watch(wctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: rv}); err == nil {
			defer w.Stop()
			select {
			case ev, ok := <-w.ResultChan():
				if ok && ev.Type != watch.Error {
					return nil
				}
				// A watch that ended or failed: not a change, so no
				// busy loop of them; the wait below.
			case <-wctx.Done():
				return ctx.Err()
			}
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(200 * time.Millisecond):
		return nil
	}
}

// poll calls try every 200 ms until it is done, fails (its error is
// returned at once) or ctx ends: then the error names the last reason try
// gave for not being done.
func poll(ctx context.Context, try func() (done bool, why string, err error)) error {
	last := ""
	for {
		done, why, err := try()
		if err != nil || done {
			return err
		}
		last = why
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready: %s (%w)", strings.TrimSpace(last), ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func conditionTrue(o *unstructured.Unstructured, typ string) bool {
	c, _ := k0rdent.FindCondition(o, typ)
	return c["status"] == "True"
}

func conditionMessages(o *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	var out []string
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["status"] != "True" {
			out = append(out, fmt.Sprintf("%v=%v: %v", m["type"], m["status"], m["message"]))
		}
	}
	return strings.Join(out, "; ")
}
