package kubecmd

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

func TestParseCondition(t *testing.T) {
	tests := []struct {
		in   string
		want condition // jp not compared
		err  string
	}{
		{in: "delete", want: condition{kind: condDelete, text: "delete"}},
		{in: "Delete", want: condition{kind: condDelete, text: "delete"}},
		{in: "create", want: condition{kind: condCreate, text: "create"}},
		{in: "condition=Ready", want: condition{kind: condCondition, text: "condition=Ready", name: "Ready", status: "True"}},
		{in: "condition=Ready=False", want: condition{kind: condCondition, text: "condition=Ready=False", name: "Ready", status: "False"}},
		{in: "condition=established=true", want: condition{kind: condCondition, text: "condition=established=true", name: "established", status: "true"}},
		{in: "condition='Ready'='False'", want: condition{kind: condCondition, text: "condition='Ready'='False'", name: "Ready", status: "False"}},
		{in: "jsonpath={.status.valid}=true", want: condition{kind: condJSONPath, text: "jsonpath={.status.valid}=true", path: "{.status.valid}", value: "true"}},
		{in: "jsonpath='{.status.valid}'=true", want: condition{kind: condJSONPath, text: "jsonpath={.status.valid}=true", path: "{.status.valid}", value: "true"}},
		{in: "jsonpath=.status.phase=Active", want: condition{kind: condJSONPath, text: "jsonpath={.status.phase}=Active", path: "{.status.phase}", value: "Active"}},
		{in: "jsonpath=status.phase='Active'", want: condition{kind: condJSONPath, text: "jsonpath={.status.phase}=Active", path: "{.status.phase}", value: "Active"}},
		{in: "jsonpath={status.phase}", want: condition{kind: condJSONPath, text: "jsonpath={.status.phase}", path: "{.status.phase}", anyValue: true}},
		{in: `jsonpath={.status.conditions[?(@.type=="Ready")].status}=True`, want: condition{kind: condJSONPath, text: `jsonpath={.status.conditions[?(@.type=="Ready")].status}=True`, path: `{.status.conditions[?(@.type=="Ready")].status}`, value: "True"}},
		{in: "", err: "--for needs a condition: --for=condition=NAME[=VALUE] | --for=jsonpath='{PATH}'[=VALUE] | --for=delete | --for=create"},
		{in: "ready", err: `unrecognized condition "ready": use --for=condition=NAME[=VALUE] | --for=jsonpath='{PATH}'[=VALUE] | --for=delete | --for=create`},
		{in: "condition=", err: "--for=condition=: missing condition name, as in --for=condition=Ready"},
		{in: "condition=Ready=", err: "--for=condition=Ready=: missing condition value after '=', as in --for=condition=Ready=False"},
		{in: "jsonpath=", err: `--for=jsonpath=: bad JSONPath "": expected {.a.b}, {a.b}, .a.b or a.b`},
		{in: "jsonpath={.a}=", err: "--for=jsonpath={.a}=: missing value after '=', as in --for=jsonpath='{.status.phase}'=Active (leave out '=' to wait for the path to exist)"},
		{in: "jsonpath={.a}=b=c", err: "--for=jsonpath={.a}=b=c: too many '=': use --for=jsonpath='{.status.phase}'=Active, or '==' inside a filter"},
		{in: "jsonpath={.a[}", err: `--for=jsonpath={.a[}: bad JSONPath {.a[}: unterminated array`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseCondition(tc.in)
			if done := checkErr(t, err, tc.err); done {
				return
			}
			if (got.jp != nil) != (got.kind == condJSONPath) {
				t.Errorf("jp set = %v for kind %d", got.jp != nil, got.kind)
			}
			got.jp = nil
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// loadObject reads a fixture from testdata/objects as the dynamic client
// would return it (integers as int64).
func loadObject(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "objects", name))
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: yamlToAPI(t, data).(map[string]any)}
}

// yamlToAPI converts YAML to the values client-go's unstructured decoding
// produces: int64 for integers, float64 for other numbers.
func yamlToAPI(t *testing.T, data []byte) any {
	t.Helper()
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := utiljson.Unmarshal(j, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestConditionCheck(t *testing.T) {
	tests := []struct {
		cond, object string // object "" means not found
		met          bool
		seen         string
	}{
		{"condition=Established", "crd-established.yaml", true, `Established=True (reason: InitialNamesAccepted, message: "the initial names have been accepted")`},
		{"condition=established=TRUE", "crd-established.yaml", true, `Established=True (reason: InitialNamesAccepted, message: "the initial names have been accepted")`},
		{"condition=Established=False", "crd-established.yaml", false, `Established=True (reason: InitialNamesAccepted, message: "the initial names have been accepted")`},
		{"condition=Ready", "crd-established.yaml", false, "no Ready condition (has NamesAccepted=True, Established=True)"},
		{"condition=Ready", "pod-notready.yaml", false, `Ready=False (reason: ContainersNotReady, message: "containers with unready status: [app]")`},
		{"condition=Ready=false", "pod-notready.yaml", true, `Ready=False (reason: ContainersNotReady, message: "containers with unready status: [app]")`},
		{"condition=Available", "deploy-progressing.yaml", false, "Available=True, but for observedGeneration 2 < generation 3"},
		{"condition=Ready", "ns-active.yaml", false, "no status.conditions"},
		{"condition=Ready", "", false, "not found"},
		{"jsonpath={.status.phase}=Active", "ns-active.yaml", true, "{.status.phase} = Active"},
		{"jsonpath={.status.phase}=Terminating", "ns-active.yaml", false, "{.status.phase} = Active"},
		{"jsonpath={.status.phase}", "ns-active.yaml", true, "{.status.phase} exists"},
		{"jsonpath={.spec.finalizers}", "ns-active.yaml", true, "{.spec.finalizers} exists"},
		{"jsonpath={.spec.finalizers}=kubernetes", "ns-active.yaml", false, "{.spec.finalizers}: is a list; give a path to a single value"},
		{"jsonpath={.status.valid}=true", "ct-valid.yaml", true, "{.status.valid} = true"},
		{"jsonpath={.status.replicas}=3", "ct-valid.yaml", true, "{.status.replicas} = 3"},
		{"jsonpath={.status.validationError}", "ct-valid.yaml", false, "{.status.validationError} not found"},
		{"jsonpath={.status.valid}=true", "", false, "not found"},
		{`jsonpath={.status.conditions[?(@.type=="Ready")].status}=False`, "pod-notready.yaml", true, `{.status.conditions[?(@.type=="Ready")].status} = False`},
		{"jsonpath={.status.containerStatuses[*].ready}=true", "pod-notready.yaml", false, "{.status.containerStatuses[*].ready} matches more than one value"},
		{"delete", "", true, "not found"},
		{"delete", "ns-active.yaml", false, "still exists"},
		{"delete", "cm-terminating.yaml", false, "still exists, being deleted since 03:04:05Z, waiting for finalizers example.com/cleanup"},
		{"create", "", false, "not found"},
		{"create", "ns-active.yaml", true, "exists"},
	}
	for _, tc := range tests {
		t.Run(tc.cond+"/"+tc.object, func(t *testing.T) {
			c, err := parseCondition(tc.cond)
			if err != nil {
				t.Fatal(err)
			}
			var obj *unstructured.Unstructured
			if tc.object != "" {
				obj = loadObject(t, tc.object)
			}
			met, seen := c.check(obj)
			if met != tc.met || seen != tc.seen {
				t.Errorf("check = %v, %q; want %v, %q", met, seen, tc.met, tc.seen)
			}
		})
	}
}

// checkErr fails t unless err is the wanted error ("" for none); it
// reports whether the case is done (an error was expected and seen).
func checkErr(t *testing.T, err error, want string) bool {
	t.Helper()
	if want != "" {
		if err == nil || err.Error() != want {
			t.Fatalf("error = %v, want %q", err, want)
		}
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	return false
}
