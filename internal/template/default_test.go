package template

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/findings"
)

// needRelease skips a test when kbook's pinned k0rdent release's module
// trees are not in the cache: the tests do not reach the module proxy
// (kbook cluster assets --k0rdent --api-only fetches them, in seconds).
func needRelease(t *testing.T) {
	t.Helper()
	rel, err := controllers.K0rdent("")
	if err != nil {
		t.Fatal(err)
	}
	if _, why := controllers.K0rdentAvailable(rel, true); why != "" {
		t.Skip(why)
	}
}

// The case: a MachineDeployment without spec.clusterName and
// spec.template.spec.bootstrap passed with no flag (no CRDs, exit 0). With
// no flag, template validate now checks against the pinned release's CRDs
// and reports both at the template's lines: spec (line 5) where
// clusterName is missing, spec.template.spec (line 14) where bootstrap is.
func TestDefaultReleaseSchemas(t *testing.T) {
	needRelease(t)
	dir, _ := setupFixture(t, "RENDER001-pass")
	md := filepath.Join(dir, "templates", "machinedeployment.yaml")
	editFile(t, md, "spec:\n  clusterName: {{ include \"cluster.name\" . }}\n", "spec:\n")
	editFile(t, md, "      bootstrap:\n        configRef:\n          apiGroup: bootstrap.cluster.x-k8s.io\n          kind: KubeadmConfigTemplate\n          name: {{ include \"kubeadmconfigtemplate.worker.name\" . }}\n", "")
	reps, err := Validate(context.Background(), Options{Charts: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	errs := bySeverity(reps[0], findings.Error)
	got := describeAll(errs)
	want := []string{
		"SCHEMA002 error templates/machinedeployment.yaml:5 spec.clusterName",
		"SCHEMA002 error templates/machinedeployment.yaml:14 spec.template.spec.bootstrap",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q:\n%s", got, want, messages(reps[0].Findings))
	}
	if code := Registry.ExitCode(reps...); code != findings.ExitErrors {
		t.Errorf("exit code %d, want %d", code, findings.ExitErrors)
	}
	for _, f := range reps[0].Findings {
		if f.Rule == ruleNoCRDs {
			t.Errorf("SCHEMA001 with the release's CRDs: %s", f.Message)
		}
	}

	// --k0rdent none and no --crds: nothing checked, as before, said once.
	reps, err = Validate(context.Background(), Options{Charts: []string{dir}, K0rdent: NoRelease})
	if err != nil {
		t.Fatal(err)
	}
	if errs := bySeverity(reps[0], findings.Error); len(errs) > 0 {
		t.Errorf("--k0rdent none: errors %q", describeAll(errs))
	}
	// An unknown release asked for is bad input.
	if _, err := Validate(context.Background(), Options{Charts: []string{dir}, K0rdent: "v0.0.1"}); !findings.IsInput(err) {
		t.Errorf("--k0rdent v0.0.1: err %v, want an input error", err)
	}
}

// The release's CRDs unavailable (an empty cache and no module proxy
// reached): SCHEMA001 says why instead of passing silently.
func TestReleaseUnavailable(t *testing.T) {
	dir, opts := setupFixture(t, "RENDER001-pass")
	opts.NoRelease = "the CRDs of k0rdent v1.11.4 could not be had: go is not on PATH"
	res, err := ValidateChart(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, f := range res.Findings {
		if f.Rule == ruleNoCRDs {
			msgs = append(msgs, string(f.Severity)+": "+f.Message)
		}
	}
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "warning: ") || !strings.Contains(msgs[0], "go is not on PATH") {
		t.Errorf("SCHEMA001 %q, want one warning naming why", msgs)
	}
}

// A template reading .Values.worker.replica, a typo of worker.replicas,
// rendered replicas: null and passed. It is reported at its line, with the
// defined key it resembles.
func TestValuesTypo(t *testing.T) {
	dir, opts := setupFixture(t, "RENDER001-pass")
	editFile(t, filepath.Join(dir, "values.yaml"), "worker:\n", "worker:\n  replicas: 2\n")
	md := filepath.Join(dir, "templates", "machinedeployment.yaml")
	editFile(t, md, "replicas: {{ .Values.workersNumber }}", "replicas: {{ .Values.worker.replica }}")
	res, err := ValidateChart(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []findings.Finding
	for _, f := range res.Findings {
		if f.Rule == ruleValueUndefined {
			got = append(got, f)
		}
	}
	if len(got) != 1 || describe(got[0]) != "VALUES011 warning templates/machinedeployment.yaml:7 worker.replica" ||
		!strings.Contains(got[0].Message, "did you mean .Values.worker.replicas?") {
		t.Fatalf("got %q, want one VALUES011 at machinedeployment.yaml:7 suggesting worker.replicas:\n%s", describeAll(got), messages(got))
	}
}

// Defined, injected, free-form and tested-optional reads are not
// reported; a tested read with a close defined name is.
func TestUndefinedAt(t *testing.T) {
	values := map[string]any{
		"worker":  map[string]any{"replicas": 1},
		"labels":  map[string]any{},
		"extra":   nil,
		"k0s":     map[string]any{"version": "v1"},
		"network": "x",
	}
	schemaDoc := map[string]any{
		"properties": map[string]any{
			"worker":   map[string]any{"properties": map[string]any{"replicas": map[string]any{}, "vmSize": map[string]any{}}},
			"free":     map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			"fromRef":  map[string]any{"$ref": "#/$defs/x"},
			"flavours": map[string]any{},
		},
		"$defs": map[string]any{"x": map[string]any{"properties": map[string]any{"a": map[string]any{}}}},
	}
	for _, tc := range []struct {
		path vpath
		at   int
	}{
		{vpath{"worker", "replicas"}, -1},
		{vpath{"worker", "vmSize"}, -1}, // the schema's only
		{vpath{"worker", "replica"}, 1},
		{vpath{"labels", "anything"}, -1},
		{vpath{"extra", "a", "b"}, -1},
		{vpath{"network", "name"}, -1},
		{vpath{"free", "key"}, -1},
		{vpath{"fromRef", "a"}, -1},
		{vpath{"fromRef", "b"}, 1},
		{vpath{"k0s", "verison"}, 1},
		{vpath{"controlPlaneNumber"}, 0},
	} {
		if at, _ := undefinedAt(values, schemaDoc, tc.path); at != tc.at {
			t.Errorf("%s: undefined at %d, want %d", tc.path, at, tc.at)
		}
	}
	if got := closest("replica", []string{"replicas", "vmSize"}); got != "replicas" {
		t.Errorf("closest(replica) = %q", got)
	}
	if got := closest("annotations", []string{"replicas", "customImage"}); got != "" {
		t.Errorf("closest(annotations) = %q, want none", got)
	}
}
