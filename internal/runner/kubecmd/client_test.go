package kubecmd

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

func TestNewClient(t *testing.T) {
	if _, err := NewClient(context.Background(), nil, "x"); err == nil || err.Error() != "kube: new client: no rest config" {
		t.Errorf("nil config: err = %v", err)
	}
	cfg := &rest.Config{Host: "https://127.0.0.1:1"}
	c, err := NewClient(context.Background(), cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Namespace != "default" || c.Config != cfg || c.Ctx == nil {
		t.Errorf("client = %+v", c)
	}
	if cfg.QPS != 0 || cfg.WarningHandler != nil {
		t.Errorf("NewClient changed the caller's config: %+v", cfg)
	}
	if err := (&Client{}).ready(); err == nil {
		t.Error("a Client literal is ready")
	}
}

func TestTouched(t *testing.T) {
	var c Client
	a := ObjectRef{"v1", "ConfigMap", "ns", "a"}
	b := ObjectRef{"k0rdent.mirantis.com/v1beta1", "ClusterTemplate", "ns", "b"}
	c.touch(a)
	c.touch(b)
	c.touch(a)
	c.touch(ObjectRef{APIVersion: "v1", Kind: "ConfigMap"}) // no name: a selection
	got := fmt.Sprint(c.Touched())
	if want := fmt.Sprint([]ObjectRef{a, b}); got != want {
		t.Errorf("Touched = %s, want %s", got, want)
	}
	if (*Client)(nil).Touched() != nil {
		t.Error("nil client has touched objects")
	}
}

func TestObjectRefString(t *testing.T) {
	tests := []struct {
		ref  ObjectRef
		want string
	}{
		{ObjectRef{"k0rdent.mirantis.com/v1beta1", "ClusterTemplate", "kcm-system", "aws"}, "clustertemplate.k0rdent.mirantis.com/aws (namespace kcm-system)"},
		{ObjectRef{"v1", "Namespace", "", "x"}, "namespace/x"},
		{ObjectRef{"apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "a.b"}, "customresourcedefinition.apiextensions.k8s.io/a.b"},
	}
	for _, tc := range tests {
		if got := tc.ref.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.ref, got, tc.want)
		}
	}
}

func TestWarningSink(t *testing.T) {
	var w warningSink
	w.HandleWarningHeader(299, "", "v1beta1 is deprecated")
	w.HandleWarningHeader(299, "", "v1beta1 is deprecated")
	w.HandleWarningHeader(199, "", "other code")
	w.HandleWarningHeader(299, "", "")
	if got := w.take(); len(got) != 1 || got[0] != "v1beta1 is deprecated" {
		t.Errorf("take = %q", got)
	}
	w.HandleWarningHeader(299, "", "v1beta1 is deprecated")
	if got := w.take(); len(got) != 0 {
		t.Errorf("repeated warning taken again: %q", got)
	}
}

func TestEventOf(t *testing.T) {
	tests := []struct {
		name string
		obj  map[string]any
		want string
	}{
		{"lastTimestamp first", map[string]any{
			"lastTimestamp": "2025-01-01T10:05:00Z", "eventTime": "2025-01-01T09:00:00.000000Z", "firstTimestamp": "2025-01-01T08:00:00Z",
		}, "10:05:00"},
		{"series", map[string]any{
			"series": map[string]any{"lastObservedTime": "2025-01-01T11:00:00.123456Z"}, "eventTime": "2025-01-01T09:00:00.000000Z",
		}, "11:00:00"},
		{"eventTime", map[string]any{"eventTime": "2025-01-01T09:00:00.000000Z"}, "09:00:00"},
		{"creation", map[string]any{"metadata": map[string]any{"creationTimestamp": "2025-01-01T07:00:00Z"}}, "07:00:00"},
		{"none", map[string]any{}, "zero"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := eventOf(tc.obj)
			got := "zero"
			if !e.when.IsZero() {
				got = e.when.UTC().Format("15:04:05")
			}
			if got != tc.want {
				t.Errorf("when = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestDiagnoseWithoutCluster(t *testing.T) {
	if got := Diagnose(context.Background(), nil, nil); got != "no cluster in this run\n" {
		t.Errorf("Diagnose(nil) = %q", got)
	}
}

// testClient returns a client in a new namespace of the envtest server,
// named prefix and a number (newNamespaceName).
func testClient(t *testing.T, ctx context.Context, prefix string) *Client {
	t.Helper()
	cfg := needCluster(t)
	ns := newNamespaceName(prefix)
	c, err := NewClient(ctx, cfg, ns)
	if err != nil {
		t.Fatal(err)
	}
	nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
	if _, err := c.dyn.Resource(namespacesGVR).Create(ctx, nsObj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAwaitHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := testClient(t, ctx, "go-await-ctx")
	a, err := parseAwaitArgs(strings.Fields("--for=create cm/never"), false)
	if err != nil {
		t.Fatal(err)
	}
	// Cancel once the first round has seen the object missing: on a
	// loaded machine a timer could fire before that round's request was
	// answered, and the error would name the request, not the object.
	var once sync.Once
	var cancelled time.Time
	awaitObserved = func() { once.Do(func() { cancelled = time.Now(); cancel() }) }
	defer func() { awaitObserved = nil }()
	err = c.await(ctx, a, false, &bytes.Buffer{})
	if d := time.Since(cancelled); d > 5*time.Second {
		t.Errorf("await took %s after cancellation", d)
	}
	want := "stopped waiting for create: context canceled: configmap/never (not found)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestNegatedAwaitFailsAtOnce(t *testing.T) {
	ctx := context.Background()
	c := testClient(t, ctx, "go-await-neg")
	a, err := parseAwaitArgs(strings.Fields("--timeout=20s --for=jsonpath={.status.phase}=Active ns/"+c.Namespace), true)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = c.await(ctx, a, true, &bytes.Buffer{})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("! await took %s to fail", d)
	}
	want := "expected jsonpath={.status.phase}=Active not to be met within 20s, but it is: namespace/" + c.Namespace + " ({.status.phase} = Active)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestDiagnoseEvents(t *testing.T) {
	ctx := context.Background()
	c := testClient(t, ctx, "go-diagnose")
	base := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	// 55 events created newest first, so that the order shown comes from
	// their timestamps.
	for i := 55; i >= 1; i-- {
		ev := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Event",
			"metadata":       map[string]any{"name": fmt.Sprintf("ev-%02d", i)},
			"involvedObject": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "namespace": c.Namespace},
			"type":           "Normal", "reason": fmt.Sprintf("Step%02d", i), "message": fmt.Sprintf("step %d", i),
			"lastTimestamp": base.Add(time.Duration(i) * time.Minute).Format(time.RFC3339),
		}}
		if _, err := c.dyn.Resource(eventsGVR).Namespace(c.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	out := Diagnose(ctx, c, []ObjectRef{{"v1", "ConfigMap", c.Namespace, "cm"}, {"example.com/v1", "Nope", c.Namespace, "x"}})
	lines := strings.Split(out, "\n")
	want := []string{
		"Events in namespace " + c.Namespace + " (newest last):",
		"  (5 older events not shown)",
		"  10:06:00 Normal  Step06 configmap/cm: step 6",
		"  10:07:00 Normal  Step07 configmap/cm: step 7",
	}
	for i, w := range want {
		if i >= len(lines) || lines[i] != w {
			t.Fatalf("line %d: want %q, output:\n%s", i, w, out)
		}
	}
	for _, s := range []string{
		"  10:55:00 Normal  Step55 configmap/cm: step 55\n\nconfigmap/cm (namespace " + c.Namespace + "):\n  not found\n",
		"nope.example.com/x (namespace " + c.Namespace + "):\n  cannot resolve: no matches for kind \"Nope\" in version \"example.com/v1\" (is its CustomResourceDefinition installed?)\n",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if n := strings.Count(out, " Normal  Step"); n != maxEvents {
		t.Errorf("%d events shown, want %d", n, maxEvents)
	}
}
