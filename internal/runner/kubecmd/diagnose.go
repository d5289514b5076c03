package kubecmd

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/k0rdent"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxEvents is how many of the newest events Diagnose shows.
const maxEvents = 50

// diagnoseTimeout bounds each lookup of Diagnose.
const diagnoseTimeout = 10 * time.Second

var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// Diagnose collects, for a failed runbook, what is most likely to explain
// the failure: the events in the client's namespace (type, reason, object,
// message; the newest 50, newest last) and, for each of refs followed by the
// objects the commands touched, its status.conditions and, for k0rdent
// objects, status.valid, status.validationError and
// status.observedGeneration. A failed lookup is reported in the text; it
// never stops the others. Pass a context that is not already cancelled
// (the runbook's may be, when it timed out).
func Diagnose(ctx context.Context, c *Client, refs []ObjectRef) string {
	if c == nil {
		return "no cluster in this run\n"
	}
	if err := c.ready(); err != nil {
		return err.Error() + "\n"
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var b strings.Builder
	c.diagnoseEvents(ctx, &b)

	seen := map[ObjectRef]bool{}
	var all []ObjectRef
	for _, r := range append(append([]ObjectRef(nil), refs...), c.Touched()...) {
		if r.Name == "" || seen[r] {
			continue
		}
		seen[r] = true
		all = append(all, r)
	}
	for _, r := range all {
		b.WriteString("\n")
		c.diagnoseObject(ctx, &b, r)
	}
	return b.String()
}

// event is the part of a core/v1 Event that Diagnose shows.
type event struct {
	when                  time.Time
	typ, reason, message  string
	kind, name, namespace string
	count                 int64
}

func (c *Client) diagnoseEvents(ctx context.Context, b *strings.Builder) {
	if c.Namespace == "" {
		return
	}
	fmt.Fprintf(b, "Events in namespace %s (newest last):\n", c.Namespace)
	ctx, cancel := context.WithTimeout(ctx, diagnoseTimeout)
	defer cancel()
	list, err := c.dyn.Resource(eventsGVR).Namespace(c.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		fmt.Fprintf(b, "  cannot list events: %v\n", err)
		return
	}
	evs := make([]event, 0, len(list.Items))
	for _, it := range list.Items {
		evs = append(evs, eventOf(it.Object))
	}
	if len(evs) == 0 {
		b.WriteString("  (none)\n")
		return
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].when.Before(evs[j].when) })
	if len(evs) > maxEvents {
		fmt.Fprintf(b, "  (%d older events not shown)\n", len(evs)-maxEvents)
		evs = evs[len(evs)-maxEvents:]
	}
	for _, e := range evs {
		obj := strings.ToLower(e.kind) + "/" + e.name
		if e.namespace != "" && e.namespace != c.Namespace {
			obj += " in namespace " + e.namespace
		}
		when := "--:--:--"
		if !e.when.IsZero() {
			when = e.when.UTC().Format("15:04:05")
		}
		line := fmt.Sprintf("  %s %-7s %s %s: %s", when, e.typ, e.reason, obj, strings.TrimSpace(e.message))
		if e.count > 1 {
			line += fmt.Sprintf(" (x%d)", e.count)
		}
		b.WriteString(line + "\n")
	}
}

// eventOf reads an Event; its time is the newest of lastTimestamp,
// series.lastObservedTime, eventTime, firstTimestamp and creationTimestamp
// that is set.
func eventOf(o map[string]any) event {
	s := func(fields ...string) string { v, _, _ := unstructured.NestedString(o, fields...); return v }
	e := event{
		typ: s("type"), reason: s("reason"), message: s("message"),
		kind: s("involvedObject", "kind"), name: s("involvedObject", "name"), namespace: s("involvedObject", "namespace"),
	}
	e.count, _, _ = unstructured.NestedInt64(o, "count")
	for _, f := range [][]string{{"lastTimestamp"}, {"series", "lastObservedTime"}, {"eventTime"}, {"firstTimestamp"}, {"metadata", "creationTimestamp"}} {
		if t := parseTime(s(f...)); !t.IsZero() {
			e.when = t
			break
		}
	}
	return e
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// diagnoseObject writes what r's status says.
func (c *Client) diagnoseObject(ctx context.Context, b *strings.Builder, r ObjectRef) {
	fmt.Fprintf(b, "%s:\n", r)
	m, err := c.mappingForKind(r.APIVersion, r.Kind)
	if err != nil {
		fmt.Fprintf(b, "  cannot resolve: %v\n", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, diagnoseTimeout)
	defer cancel()
	obj, err := c.getObject(ctx, m, r.Namespace, r.Name)
	switch {
	case err != nil:
		fmt.Fprintf(b, "  cannot get: %v\n", err)
		return
	case obj == nil:
		b.WriteString("  not found\n")
		return
	}
	if ts := obj.GetDeletionTimestamp(); ts != nil {
		fmt.Fprintf(b, "  being deleted since %s", ts.UTC().Format(time.RFC3339))
		if f := obj.GetFinalizers(); len(f) > 0 {
			fmt.Fprintf(b, ", finalizers: %s", strings.Join(f, ", "))
		}
		b.WriteString("\n")
	}
	wrote := false
	if m.GroupVersionKind.Group == k0rdent.Group { // status carries valid, validationError, observedGeneration
		wrote = writeK0rdentStatus(b, obj)
	}
	conds, found, err := unstructured.NestedSlice(obj.Object, "status", "conditions")
	switch {
	case err != nil:
		fmt.Fprintf(b, "  status.conditions: %v\n", err)
		wrote = true
	case found && len(conds) > 0:
		b.WriteString("  conditions:\n")
		for _, raw := range conds {
			cond, ok := raw.(map[string]any)
			if !ok {
				continue
			}
			fmt.Fprintf(b, "    %s\n", describeCondition(cond))
		}
		wrote = true
	}
	if !wrote {
		if _, ok := obj.Object["status"]; ok {
			b.WriteString("  no status.conditions\n")
		} else {
			b.WriteString("  no status\n")
		}
	}
}

// writeK0rdentStatus writes a k0rdent object's validity and generations;
// it reports whether it wrote anything.
func writeK0rdentStatus(b *strings.Builder, obj *unstructured.Unstructured) bool {
	st, ok := obj.Object["status"].(map[string]any)
	if !ok {
		b.WriteString("  status.valid: not set (no status: has the controller seen it?)\n")
		return true
	}
	if v, ok := st["valid"]; ok {
		fmt.Fprintf(b, "  status.valid: %s\n", describe(v))
	} else {
		b.WriteString("  status.valid: not set\n")
	}
	if v, ok := st["validationError"]; ok && v != "" {
		fmt.Fprintf(b, "  status.validationError: %s\n", describe(v))
	}
	gen := obj.GetGeneration()
	if og, ok, _ := unstructured.NestedInt64(st, "observedGeneration"); ok {
		line := fmt.Sprintf("  status.observedGeneration: %d", og)
		if og < gen {
			line += fmt.Sprintf(" (behind metadata.generation %d: not reconciled yet)", gen)
		}
		b.WriteString(line + "\n")
	} else if gen > 0 {
		fmt.Fprintf(b, "  status.observedGeneration: not set (metadata.generation %d)\n", gen)
	}
	return true
}
