package schema_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/k0rdent/kbook/internal/schema"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// The shared reference CRDs, beside the repository root, and this package's
// own.
const (
	k0rdentCRDs   = "../../../shared/crds/k0rdent"
	capiCRDs      = "../../../shared/crds/capi"
	k0smotronCRDs = "../../../shared/crds/k0smotron"
	widgetCRDs    = "testdata/crds"
	objectsDir    = "testdata/objects"
)

var sharedDirs = []string{k0rdentCRDs, capiCRDs, k0smotronCRDs}

// haveShared reports whether the shared CRDs are there.
func haveShared() bool {
	for _, d := range sharedDirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

func needShared(tb testing.TB) {
	tb.Helper()
	if !haveShared() {
		tb.Skipf("needs the reference CRDs in %s (shared/crds beside the repository root)", strings.Join(sharedDirs, ", "))
	}
}

// crdDirs are the CRD folders the tests load: this package's, and the
// shared ones when they are there.
func crdDirs() []string {
	dirs := []string{widgetCRDs}
	if haveShared() {
		dirs = append(dirs, sharedDirs...)
	}
	return dirs
}

// loaded is the Validator of crdDirs, loaded once.
var loaded = sync.OnceValues(func() (*schema.Validator, error) {
	return schema.FromFiles(crdDirs()...)
})

func validator(tb testing.TB) *schema.Validator {
	tb.Helper()
	v, err := loaded()
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// readObject reads the one object of a fixture file.
func readObject(tb testing.TB, file string) *unstructured.Unstructured {
	tb.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &u.Object); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	return u
}

func gvk(apiVersion, kind string) kschema.GroupVersionKind {
	return kschema.FromAPIVersionAndKind(apiVersion, kind)
}

func TestFromFilesShared(t *testing.T) {
	needShared(t)
	v, err := schema.FromFiles(sharedDirs...)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		gvk        kschema.GroupVersionKind
		has        bool
		namespaced bool
	}{
		{gvk("k0rdent.mirantis.com/v1beta1", "ClusterTemplate"), true, true},
		{gvk("k0rdent.mirantis.com/v1beta1", "Management"), true, false},
		{gvk("cluster.x-k8s.io/v1beta2", "Cluster"), true, true},
		{gvk("cluster.x-k8s.io/v1beta1", "Cluster"), true, true}, // deprecated, still served
		{gvk("cluster.x-k8s.io/v1alpha4", "Cluster"), false, false},
		{gvk("infrastructure.cluster.x-k8s.io/v1beta2", "DockerCluster"), true, true},
		{gvk("controlplane.cluster.x-k8s.io/v1beta2", "K0sControlPlane"), true, true},
		{gvk("infrastructure.cluster.x-k8s.io/v1beta2", "RemoteMachine"), true, true},
		{gvk("k0rdent.mirantis.com/v1beta1", "NoSuchKind"), false, false},
		{gvk("v1", "ConfigMap"), false, false},
		{kschema.GroupVersionKind{}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.gvk.String(), func(t *testing.T) {
			if got := v.Has(tt.gvk); got != tt.has {
				t.Errorf("Has = %v, want %v", got, tt.has)
			}
			namespaced, known := v.Namespaced(tt.gvk)
			if known != tt.has || namespaced != tt.namespaced {
				t.Errorf("Namespaced = %v, %v, want %v, %v", namespaced, known, tt.namespaced, tt.has)
			}
		})
	}
	kinds := v.Kinds()
	if len(kinds) < 100 {
		t.Errorf("Kinds: %d, want all versions of the 63 shared CRDs", len(kinds))
	}
	for _, k := range kinds {
		if !v.Has(k) {
			t.Errorf("Kinds lists %s, Has says no", k)
		}
	}
}

func TestKinds(t *testing.T) {
	v, err := schema.FromFiles(widgetCRDs)
	if err != nil {
		t.Fatal(err)
	}
	want := []kschema.GroupVersionKind{
		gvk("example.kbook.io/v1", "Gadget"), // v1alpha1 is not served
		gvk("example.kbook.io/v1", "Widget"),
	}
	if got := v.Kinds(); !reflect.DeepEqual(got, want) {
		t.Errorf("Kinds = %v, want %v", got, want)
	}
	v.Kinds()[0].Kind = "changed"
	if v.Kinds()[0].Kind != "Gadget" {
		t.Error("Kinds returns the Validator's own slice")
	}
	if ns, known := v.Namespaced(gvk("example.kbook.io/v1", "Gadget")); ns || !known {
		t.Errorf("Gadget: Namespaced = %v, %v, want false, true", ns, known)
	}
	if v.Has(gvk("example.kbook.io/v1alpha1", "Gadget")) {
		t.Error("Has reports a version that is not served")
	}
}

// want is one expected error.
type want struct {
	typ    field.ErrorType
	field  string
	detail string // a substring of the detail
}

// notChecked is the error the server adds when a blocking error keeps the
// CEL rules from running.
var notChecked = want{field.ErrorTypeInvalid, "<nil>", "some validation rules were not checked"}

// fixtures are the files of testdata/objects with the errors Validate must
// return, in order. The integration test checks that the API server rejects
// exactly the same ones.
var fixtures = map[string][]want{
	// The CRD's transition rule "Spec is immutable" (self == oldSelf) is
	// skipped on create.
	"clustertemplate-valid.yaml": nil,
	"clustertemplate-chartspec-and-chartref.yaml": {
		// Two of the CRD's rules say so.
		{field.ErrorTypeInvalid, "spec.helm", "chartSpec, chartSource and chartRef are mutually exclusive"},
		{field.ErrorTypeInvalid, "spec.helm", "chartSpec, chartSource and chartRef are mutually exclusive"},
	},
	"clustertemplate-missing-interval.yaml": {
		{field.ErrorTypeRequired, "spec.helm.chartSpec.interval", ""},
		notChecked,
	},
	"clustertemplate-bad-sourceref-kind.yaml": {
		{field.ErrorTypeNotSupported, "spec.helm.chartSpec.sourceRef.kind", `supported values: "HelmRepository", "GitRepository", "Bucket"`},
		notChecked,
	},
	"clustertemplate-unknown-field.yaml": {
		{field.ErrorTypeForbidden, "spec.helm.chartSpec.foo", `unknown field "spec.helm.chartSpec.foo"`},
	},
	"clustertemplate-unknown-metadata-field.yaml": {
		{field.ErrorTypeForbidden, "metadata.owner", `unknown field "metadata.owner"`},
	},
	"clustertemplate-bad-interval.yaml": {
		{field.ErrorTypeInvalid, "spec.helm.chartSpec.interval", "should match '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$'"},
	},
	"clustertemplate-bad-name.yaml": {
		{field.ErrorTypeInvalid, "metadata.name", "a lowercase RFC 1123 subdomain"},
	},
	"clustertemplate-no-chart.yaml": {
		{field.ErrorTypeInvalid, "spec.helm", "one of chartSpec, chartRef or chartSource must be set"},
	},
	"clustertemplate-no-helm.yaml": {
		{field.ErrorTypeRequired, "spec.helm", ""},
		notChecked,
	},
	"cluster-v1beta2-valid.yaml": nil,
	"cluster-v1beta2-missing-apigroup.yaml": {
		{field.ErrorTypeRequired, "spec.infrastructureRef.apiGroup", ""},
		notChecked,
	},
	"cluster-v1beta2-status-dropped.yaml": nil,
	"dockercluster-v1beta2-valid.yaml":    nil,
	"k0scontrolplane-v1beta2-valid.yaml":  nil,
	"k0scontrolplane-v1beta2-replicas-string.yaml": {
		{field.ErrorTypeTypeInvalid, "spec.replicas", "must be of type integer"},
		// The scale subresource's check, with the path as the CRD spells it.
		{field.ErrorTypeInvalid, ".spec.replicas", "expected int64"},
	},
	"remotemachine-v1beta2-valid.yaml": nil,

	// The transition rule self.mode == oldSelf.mode is skipped: evaluated
	// without oldSelf it would fail.
	"widget-valid.yaml":          nil,
	"widget-generate-name.yaml":  nil,
	"widget-status-dropped.yaml": nil,
	"widget-missing-replicas.yaml": { // mode is required too, but defaulted
		{field.ErrorTypeRequired, "spec.replicas", ""},
		notChecked,
	},
	"widget-replicas-exceed.yaml": {
		{field.ErrorTypeInvalid, "spec", "replicas (20) must not exceed maxReplicas (5)"},
	},
	"widget-huge-without-limits.yaml": {
		{field.ErrorTypeRequired, "spec.limits", "huge widgets need limits"},
	},
	"widget-legacy.yaml": {
		{field.ErrorTypeInvalid, "spec", "legacy widgets can no longer be created"},
	},
	"widget-bad-name.yaml": {
		{field.ErrorTypeInvalid, "<nil>", "widget names start with w-"},
	},
	"widget-wrong-type.yaml": {
		{field.ErrorTypeTypeInvalid, "spec.replicas", "must be of type integer"},
		{field.ErrorTypeInvalid, ".spec.replicas", "expected int64"},
		notChecked,
	},
	"widget-duplicate-port.yaml": {
		{field.ErrorTypeDuplicate, "spec.ports[1]", ""},
	},
	"widget-port-22.yaml": {
		{field.ErrorTypeInvalid, "spec.ports", "port 22 is reserved"},
	},
	"widget-bad-date.yaml": {
		{field.ErrorTypeTypeInvalid, "spec.started", "must be of type date-time"},
		notChecked,
	},
	"widget-too-many-labels.yaml": {
		{field.ErrorTypeTooMany, "spec.labels", "must have at most 3 items"},
		notChecked,
	},
	"widget-bad-pattern.yaml": {
		{field.ErrorTypeInvalid, "spec.limits.cpu", "should match '^[0-9]+m?$'"},
	},
	"widget-negative-replicas.yaml": {
		{field.ErrorTypeInvalid, "spec.replicas", "should be greater than or equal to 0"},
		{field.ErrorTypeInvalid, ".spec.replicas", "should be a non-negative integer"},
	},
	"widget-embedded-no-kind.yaml": {
		{field.ErrorTypeRequired, "spec.template.kind", ""},
		notChecked,
	},
	"gadget-valid.yaml": nil,
	"gadget-too-long.yaml": { // Gadget has no CEL rules
		{field.ErrorTypeTooLong, "spec.color", "may not be more than 8 bytes"},
	},
	"gadget-unserved-version.yaml": {
		{field.ErrorTypeNotSupported, "apiVersion", `supported values: "example.kbook.io/v1"`},
	},
}

// fixtureFiles lists testdata/objects and checks that the table covers it.
func fixtureFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(objectsDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		name := filepath.Base(f)
		if _, ok := fixtures[name]; !ok {
			t.Errorf("%s has no entry in fixtures", f)
		}
		names = append(names, name)
	}
	for name := range fixtures {
		if !slices.Contains(names, name) {
			t.Errorf("fixtures lists %s, which is not in %s", name, objectsDir)
		}
	}
	return names
}

func TestValidate(t *testing.T) {
	v := validator(t)
	for _, name := range fixtureFiles(t) {
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			obj := readObject(t, filepath.Join(objectsDir, name))
			if !v.Has(obj.GroupVersionKind()) && !strings.HasPrefix(name, "gadget-unserved") {
				needShared(t)
				t.Fatalf("no CRD for %s", obj.GroupVersionKind())
			}
			before := obj.DeepCopy()
			errs := v.Validate(obj)
			if !reflect.DeepEqual(obj, before) {
				t.Error("Validate modified the object")
			}
			checkErrors(t, errs, fixtures[name])
		})
	}
}

// checkErrors compares errs with wants, in order.
func checkErrors(t *testing.T, errs field.ErrorList, wants []want) {
	t.Helper()
	ok := len(errs) == len(wants)
	for i := 0; ok && i < len(errs); i++ {
		w, e := wants[i], errs[i]
		ok = e.Type == w.typ && e.Field == w.field && strings.Contains(e.Detail, w.detail)
	}
	if ok {
		return
	}
	var got, exp strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&got, "\n\t%s | %s | %s", e.Type, e.Field, e.Detail)
	}
	for _, w := range wants {
		fmt.Fprintf(&exp, "\n\t%s | %s | ...%s...", w.typ, w.field, w.detail)
	}
	t.Errorf("errors:%s\nwant:%s", got.String(), exp.String())
}

func TestValidateUnknownKind(t *testing.T) {
	v := validator(t)
	tests := []struct {
		apiVersion, kind string
		want             want
	}{
		{"example.kbook.io/v1", "Sprocket", want{field.ErrorTypeInvalid, "kind", "no CustomResourceDefinition defines kind Sprocket in apiVersion example.kbook.io/v1"}},
		{"v1", "ConfigMap", want{field.ErrorTypeInvalid, "kind", "no CustomResourceDefinition defines kind ConfigMap in apiVersion v1"}},
		{"example.kbook.io/v2", "Widget", want{field.ErrorTypeNotSupported, "apiVersion", `supported values: "example.kbook.io/v1"`}},
		{"example.kbook.io/v1", "", want{field.ErrorTypeRequired, "kind", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.apiVersion+"/"+tt.kind, func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: map[string]interface{}{
				"apiVersion": tt.apiVersion,
				"kind":       tt.kind,
				"metadata":   map[string]interface{}{"name": "x"},
			}}
			checkErrors(t, v.Validate(obj), []want{tt.want})
		})
	}
	checkErrors(t, v.Validate(nil), []want{{field.ErrorTypeRequired, "<nil>", "no object"}})
}

// TestValidateGoValues validates an object built in Go, with int and
// float64 numbers and typed slices, as a template renderer may produce:
// Validate sees what the server would receive as JSON.
func TestValidateGoValues(t *testing.T) {
	v := validator(t)
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.kbook.io/v1",
		"kind":       "Widget",
		"metadata":   map[string]interface{}{"name": "w-go"},
		"spec": map[string]interface{}{
			"replicas":    3,          // int
			"maxReplicas": float64(4), // a whole float64 is an integer in JSON
			"ports":       []map[string]interface{}{{"name": "a", "port": int32(80)}},
		},
	}}
	checkErrors(t, v.Validate(obj), nil)

	obj.Object["spec"].(map[string]interface{})["replicas"] = 2.5
	checkErrors(t, v.Validate(obj), []want{
		{field.ErrorTypeTypeInvalid, "spec.replicas", "must be of type integer"},
		{field.ErrorTypeInvalid, ".spec.replicas", "expected int64"},
		notChecked,
	})

	obj.Object["spec"].(map[string]interface{})["replicas"] = func() {}
	checkErrors(t, v.Validate(obj), []want{{field.ErrorTypeInvalid, "<nil>", "cannot encode the object as JSON"}})
}

// TestValidateNamespace checks the namespace handling: the namespace of a
// namespaced object may be missing (it is set at install time) but must be
// valid when present.
func TestValidateNamespace(t *testing.T) {
	v := validator(t)
	obj := readObject(t, filepath.Join(objectsDir, "widget-valid.yaml"))
	obj.SetNamespace("Not_Valid")
	checkErrors(t, v.Validate(obj), []want{{field.ErrorTypeInvalid, "metadata.namespace", "a lowercase RFC 1123 label"}})
	obj.SetNamespace("")
	obj.SetName("")
	checkErrors(t, v.Validate(obj), []want{
		{field.ErrorTypeRequired, "metadata.name", "name or generateName is required"},
		notChecked, // a Required error keeps the rule on the name from running
	})
}

func TestValidateConcurrent(t *testing.T) {
	v, err := schema.FromFiles(widgetCRDs) // fresh: nothing compiled yet
	if err != nil {
		t.Fatal(err)
	}
	obj := readObject(t, filepath.Join(objectsDir, "widget-replicas-exceed.yaml"))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			checkErrors(t, v.Validate(obj), fixtures["widget-replicas-exceed.yaml"])
		})
	}
	wg.Wait()
}

func TestFromFilesErrors(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		want  string // a substring of the error
	}{
		{"not found", []string{"testdata/no-such-file.yaml"}, "schema: stat testdata/no-such-file.yaml: no such file or directory"},
		{"invalid YAML", []string{"testdata/bad/invalid-yaml.yaml"}, "testdata/bad/invalid-yaml.yaml: document 1: yaml: line 5"},
		{"no schema", []string{"testdata/bad/no-schema.yaml"}, `testdata/bad/no-schema.yaml: document 2: CustomResourceDefinition "things.example.kbook.io" is invalid: spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required`},
		{"not structural", []string{"testdata/bad/not-structural.yaml"}, "spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"},
		{"bad default", []string{"testdata/bad/bad-default.yaml"}, "properties[size].default: Invalid value"},
		{"unknown CRD field", []string{"testdata/bad/unknown-crd-field.yaml"}, `testdata/bad/unknown-crd-field.yaml: document 1: strict decoding error: unknown field "spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validation"`},
		{"wrong name", []string{"testdata/bad/wrong-name.yaml"}, `metadata.name: Invalid value: "thing.example.kbook.io": must be spec.names.plural+"."+spec.group`},
		{"v1beta1", []string{"testdata/bad/v1beta1.yaml"}, "apiextensions.k8s.io/v1beta1 CustomResourceDefinition is not served"},
		{"same kind twice", []string{widgetCRDs, "testdata/bad/duplicate-kind.yaml"}, "testdata/crds/widgets.yaml: document 4 and testdata/bad/duplicate-kind.yaml: document 1 (CustomResourceDefinitions widgets.example.kbook.io and widgetz.example.kbook.io) both define kind Widget in group example.kbook.io"},
		{"first error of a directory", []string{"testdata/bad"}, "testdata/bad/bad-default.yaml: document 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := schema.FromFiles(tt.paths...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
			if v != nil {
				t.Error("a Validator with the error")
			}
		})
	}
}

func TestFromFilesIgnored(t *testing.T) {
	// Non-CRD documents, a List without CRDs, a YAML list, a scalar, empty
	// documents; README.txt (not YAML) is not read.
	v, err := schema.FromFiles("testdata/ignored")
	if err != nil {
		t.Fatal(err)
	}
	if k := v.Kinds(); len(k) != 0 {
		t.Errorf("Kinds = %v", k)
	}
	// No paths: an empty Validator.
	v, err = schema.FromFiles()
	if err != nil || len(v.Kinds()) != 0 || v.Has(gvk("example.kbook.io/v1", "Widget")) {
		t.Errorf("FromFiles() = %v, %v", v, err)
	}
}

func TestFromFilesListAndReplace(t *testing.T) {
	dir := t.TempDir()
	crds, err := os.ReadFile(filepath.Join(widgetCRDs, "widgets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// kubectl get crd -o json: a List; then the same CRDs again, which
	// replace the first ones rather than conflict.
	var items []interface{}
	for _, doc := range strings.Split(string(crds), "\n---\n") {
		var m map[string]interface{}
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		if m != nil {
			items = append(items, m)
		}
	}
	list, err := json.Marshal(map[string]interface{}{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	listFile := filepath.Join(dir, "list.json")
	if err := os.WriteFile(listFile, list, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := schema.FromFiles(listFile, widgetCRDs)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(v.Kinds()); got != 2 {
		t.Errorf("Kinds = %v", v.Kinds())
	}
	checkErrors(t, v.Validate(readObject(t, filepath.Join(objectsDir, "widget-legacy.yaml"))), fixtures["widget-legacy.yaml"])

	// An error in a List names the item.
	broken := strings.Replace(string(list), `"openAPIV3Schema":`, `"openAPIV3SchemaX":`, 1)
	if err := os.WriteFile(listFile, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := schema.FromFiles(listFile); err == nil || !strings.Contains(err.Error(), "list.json: document 1, item ") {
		t.Errorf("err = %v, want it to name the item", err)
	}
}

// Labels reads the released providers' CRD labels: CAPA serves control
// plane and bootstrap kinds as infrastructure-aws.
func TestLabelsShared(t *testing.T) {
	const providers = "../../../shared/providers"
	if _, err := os.Stat(providers); err != nil {
		t.Skipf("needs the labelled provider CRDs in %s: %v", providers, err)
	}
	v, err := schema.FromFiles(append(slices.Clone(sharedDirs), providers)...)
	if err != nil {
		t.Fatal(err)
	}
	for gk, want := range map[kschema.GroupKind]string{
		{Group: "controlplane.cluster.x-k8s.io", Kind: "AWSManagedControlPlane"}: "infrastructure-aws",
		{Group: "bootstrap.cluster.x-k8s.io", Kind: "NodeadmConfigTemplate"}:     "infrastructure-aws",
		{Group: "controlplane.cluster.x-k8s.io", Kind: "K0smotronControlPlane"}:  "k0sproject-k0smotron",
	} {
		labels, ok := v.Labels(gk)
		if !ok || labels["cluster.x-k8s.io/provider"] != want {
			t.Errorf("%s: labels %v (known %v), want provider %s", gk, labels, ok, want)
		}
	}
	if _, ok := v.Labels(kschema.GroupKind{Group: "example.io", Kind: "Nope"}); ok {
		t.Error("Labels of an unknown kind")
	}
}
