package plane

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// A Flux object counts as reconciled after a restore only with the
// restore's token handled, its generation observed, its artifact in this
// run's storage and Ready: each stale part of a snapshot's status keeps it
// pending.
func TestFluxPending(t *testing.T) {
	const token, storage = "kbook-restore-2026-12-02T07:00:00.123456789Z", "127.0.0.1:40001"
	data, err := os.ReadFile("testdata/helmchart-resynced.yaml")
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	base := &unstructured.Unstructured{}
	if err := base.UnmarshalJSON(js); err != nil { // integers as the API's clients decode them
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(o *unstructured.Unstructured)
		want   string // "" reconciled, else part of the reason
	}{
		{"reconciled since the restore", func(*unstructured.Unstructured) {}, ""},
		{"the previous run's request", func(o *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(o.Object, "kbook-restore-2026-12-01T10:00:00Z", "status", "lastHandledReconcileAt")
		}, "not reconciled since the restore"},
		{"never asked", func(o *unstructured.Unstructured) {
			unstructured.RemoveNestedField(o.Object, "status", "lastHandledReconcileAt")
		}, "not reconciled since the restore"},
		{"a new generation", func(o *unstructured.Unstructured) { o.SetGeneration(2) }, "generation 2 not observed"},
		{"the previous run's storage", func(o *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(o.Object, "http://127.0.0.1:39999/helmchart/kcm-system/cluster-api-1-0-8/cluster-api-1.0.8.tgz", "status", "artifact", "url")
		}, "not in this run's storage"},
		{"no artifact (a HelmRelease)", func(o *unstructured.Unstructured) {
			unstructured.RemoveNestedField(o.Object, "status", "artifact")
		}, ""},
		{"not ready", func(o *unstructured.Unstructured) {
			conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
			c := conds[0].(map[string]any)
			c["status"], c["message"] = "False", "chart pull error: connection refused"
			_ = unstructured.SetNestedSlice(o.Object, conds, "status", "conditions")
		}, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base.DeepCopy()
			tc.change(o)
			got := fluxPending(o, token, storage)
			if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
				t.Errorf("fluxPending = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAtOnce: every job runs, never more than n at once, and every error
// is returned.
func TestAtOnce(t *testing.T) {
	var (
		mu            sync.Mutex
		running, most int
		ran           atomic.Int32
	)
	var jobs []func() error
	for i := range 50 {
		jobs = append(jobs, func() error {
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			runtime.Gosched()
			mu.Lock()
			running--
			mu.Unlock()
			ran.Add(1)
			if i%10 == 3 {
				return fmt.Errorf("job %d", i)
			}
			return nil
		})
	}
	err := atOnce(4, jobs)
	if ran.Load() != 50 {
		t.Errorf("%d of 50 jobs ran", ran.Load())
	}
	if most > 4 {
		t.Errorf("%d jobs ran at once, want at most 4", most)
	}
	for _, i := range []int{3, 13, 23, 33, 43} {
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("job %d", i)) {
			t.Errorf("error %v lacks job %d's", err, i)
		}
	}
	if err := atOnce(8, nil); err != nil {
		t.Errorf("no jobs: %v", err)
	}
}
