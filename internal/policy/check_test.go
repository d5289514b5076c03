package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// load loads a policy of testdata, failing the test if it does not load.
func load(t *testing.T, name string) *Policy {
	t.Helper()
	p, err := Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// object decodes an object of testdata/objects as kbook's renderer does
// (sigs.k8s.io/yaml: JSON numbers are float64) and as yaml.v3 does (int).
func objects(t *testing.T, name string) map[string]map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "objects", name))
	if err != nil {
		t.Fatal(err)
	}
	var viaJSON, viaYAML map[string]any
	if err := sigsyaml.Unmarshal(data, &viaJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &viaYAML); err != nil {
		t.Fatal(err)
	}
	return map[string]map[string]any{"sigs.k8s.io/yaml": viaJSON, "yaml.v3": viaYAML}
}

// summary is how the tests compare violations: "ID severity: message".
func summary(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%s %s: %s", v.Rule.ID, v.Rule.Severity, v.Message))
	}
	return out
}

func TestCheckObject(t *testing.T) {
	values := map[string]any{"controlPlane": map[string]any{"replicas": 3}}
	tests := []struct {
		policy, object string
		values         map[string]any
		want           []string
	}{
		// Kind matching: bare Kind, group/Kind, group/* and the core group.
		{"checks.yaml", "awscluster-eu.yaml", nil, nil},
		{"checks.yaml", "awscluster-us.yaml", nil, []string{
			"KIND-BARE error: region us-east-1 is not allowed",
			"KIND-GROUP-STAR warning: infrastructure objects should be reviewed",
		}},
		{"checks.yaml", "awscluster-no-region.yaml", nil, []string{
			"KIND-BARE error: evaluation error: no such key: region",
		}},
		{"checks.yaml", "cluster-ok.yaml", nil, nil},
		{"checks.yaml", "cluster-unlabelled.yaml", nil, []string{
			"KIND-GROUP error: Cluster needs an acme.io/owner label",
			"ALL-NAME warning: failed expression: !object.metadata.name.contains('test')",
		}},
		{"checks.yaml", "cluster-other-group.yaml", nil, nil},
		{"checks.yaml", "configmap.yaml", nil, []string{"KIND-CORE error: ConfigMap settings has 3 keys"}},
		// Values seen by an object rule.
		{"checks.yaml", "k0scontrolplane.yaml", values, nil},
		{"checks.yaml", "k0scontrolplane.yaml", map[string]any{"controlPlane": map[string]any{"replicas": 1.0}}, []string{
			"VALUES-OBJECT error: spec.replicas is 3, values say 1",
		}},
		{"checks.yaml", "k0scontrolplane.yaml", nil, []string{
			"VALUES-OBJECT error: evaluation error: no such key: controlPlane",
		}},
		// messageExpression that fails or returns "": the message.
		{"checks.yaml", "machinedeployment.yaml", nil, []string{
			"MESSAGE-ERROR error: too many replicas (messageExpression: evaluation error: no such key: missing)",
		}},
		{"checks.yaml", "machinedeployment-zero.yaml", nil, []string{"MESSAGE-EMPTY error: at least one replica"}},
		// An expression that turns out not to be a bool.
		{"checks.yaml", "secret.yaml", nil, []string{"NOT-BOOL error: evaluation error: expression returned map, not bool"}},

		// The example policy.
		{"example-policy.yaml", "cluster-ok.yaml", nil, nil},
		{"example-policy.yaml", "cluster-unlabelled.yaml", nil, []string{
			"ACME-CLUSTER-001 error: Cluster test-cluster is missing the labels acme.io/cost-center, acme.io/environment",
		}},
		{"example-policy.yaml", "cluster-bad-environment.yaml", nil, []string{
			"ACME-CLUSTER-002 error: acme.io/environment is qa, want dev, staging or prod",
		}},
		{"example-policy.yaml", "cluster-other-group.yaml", nil, nil},
		{"example-policy.yaml", "awscluster-eu.yaml", nil, nil},
		{"example-policy.yaml", "awscluster-us.yaml", nil, []string{
			"ACME-AWS-001 error: AWS region us-east-1 is not allowed: use eu-west-1, eu-central-1 or eu-north-1",
		}},
		{"example-policy.yaml", "awscluster-no-region.yaml", nil, []string{
			"ACME-AWS-001 error: AWS region (none) is not allowed: use eu-west-1, eu-central-1 or eu-north-1",
		}},
		{"example-policy.yaml", "awsmachinetemplate-ok.yaml", nil, nil},
		{"example-policy.yaml", "awsmachinetemplate-metal.yaml", nil, []string{
			"ACME-AWS-002 error: instance type p4d.metal is not in an approved family (t3, m6i, m7i, c6i, c7i, r6i)",
			"ACME-AWS-003 warning: bare-metal instance types need an exception from the platform team",
			"ACME-AWS-004 warning: root volumes should be encrypted (spec.template.spec.rootVolume.encrypted)",
		}},
		{"example-policy.yaml", "k0smotroncontrolplane.yaml", nil, []string{
			"ACME-IMAGE-001 error: images must come from registry.acme.io: spec.image docker.io/k0sproject/k0s, spec.etcd.image quay.io/k0sproject/etcd:v3.5.13",
		}},
		{"example-policy.yaml", "k0smotroncontrolplane-acme.yaml", nil, nil},
		{"example-policy.yaml", "configmap.yaml", nil, nil},
		{"example-policy.yaml", "secret.yaml", nil, nil},
	}
	for _, tc := range tests {
		p := load(t, tc.policy)
		for decoder, obj := range objects(t, tc.object) {
			t.Run(strings.TrimSuffix(tc.policy, ".yaml")+"/"+tc.object+"/"+decoder, func(t *testing.T) {
				got := summary(p.CheckObject(obj, nil, tc.values))
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("CheckObject =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
				}
			})
		}
	}
}

func TestCheckChart(t *testing.T) {
	acme := map[string]any{
		"name":       "acme-aws",
		"version":    "1.2.0",
		"appVersion": "v1.32.6",
		"type":       "application",
		"keywords":   []string{"k0rdent", "aws"},
		"annotations": map[string]string{
			"k0rdent.mirantis.com/k8s-version": "v1.32.6",
			"acme.io/owner":                    "platform",
		},
	}
	bare := map[string]any{"name": "bare", "version": "0.1"}
	tests := []struct {
		name          string
		policy        string
		chart, values map[string]any
		want          []string
	}{
		{"compliant", "checks.yaml", acme, map[string]any{"controlPlane": map[string]any{"replicas": 3}}, nil},
		{"no annotations or values", "checks.yaml", bare, nil, []string{
			"CHART-K8S error: the k0rdent.mirantis.com/k8s-version annotation is required",
			"CHART-OWNER error: the acme.io/owner annotation is required",
			"CHART-REPLICAS error: evaluation error: no such key: controlPlane",
			"CHART-KEYWORDS warning: keywords of bare should include k0rdent",
		}},
		{"nil chart", "checks.yaml", nil, map[string]any{"controlPlane": map[string]any{"replicas": 5}}, []string{
			"CHART-K8S error: the k0rdent.mirantis.com/k8s-version annotation is required",
			"CHART-OWNER error: the acme.io/owner annotation is required",
			"CHART-KEYWORDS warning: keywords of  should include k0rdent",
		}},
		{"too few replicas", "checks.yaml", acme, map[string]any{"controlPlane": map[string]any{"replicas": 1}}, []string{
			"CHART-REPLICAS error: controlPlane.replicas is 1, want at least 3",
		}},
		{"replicas from JSON", "checks.yaml", acme, map[string]any{"controlPlane": map[string]any{"replicas": json.Number("2")}}, []string{
			"CHART-REPLICAS error: controlPlane.replicas is 2, want at least 3",
		}},
		{"example compliant", "example-policy.yaml", acme, map[string]any{"controlPlaneNumber": 3.0}, nil},
		{"example", "example-policy.yaml", bare, map[string]any{"controlPlaneNumber": 2.0}, []string{
			"ACME-CHART-001 error: the chart must declare its Kubernetes version in the k0rdent.mirantis.com/k8s-version annotation",
			"ACME-CHART-002 error: the chart must name its owning team in the acme.io/owner annotation",
			"ACME-CHART-003 warning: chart version 0.1 is not MAJOR.MINOR.PATCH",
			"ACME-VALUES-001 warning: controlPlaneNumber is 2: production clusters need an odd number of at least 3 control-plane machines",
		}},
		{"example default values", "example-policy.yaml", acme, nil, []string{
			"ACME-VALUES-001 warning: controlPlaneNumber is 1: production clusters need an odd number of at least 3 control-plane machines",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := summary(load(t, tc.policy).CheckChart(tc.chart, tc.values))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("CheckChart =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// Object rules do not run in CheckChart, chart rules not in CheckObject,
// and a nil policy has no rules.
func TestTargets(t *testing.T) {
	p := load(t, "checks.yaml")
	for _, v := range p.CheckChart(nil, nil) {
		if v.Rule.Target != TargetChart {
			t.Errorf("CheckChart ran %s", v.Rule.ID)
		}
	}
	for _, v := range p.CheckObject(map[string]any{"kind": "Secret", "metadata": map[string]any{"name": "test"}}, nil, nil) {
		if v.Rule.Target != TargetObject {
			t.Errorf("CheckObject ran %s", v.Rule.ID)
		}
	}
	var none *Policy
	if v := none.CheckObject(nil, nil, nil); v != nil {
		t.Errorf("nil policy: CheckObject = %v", v)
	}
	if v := none.CheckChart(nil, nil); v != nil {
		t.Errorf("nil policy: CheckChart = %v", v)
	}
}

func TestLimits(t *testing.T) {
	start := time.Now()
	got := summary(load(t, "limits.yaml").CheckChart(nil, nil))
	want := []string{
		"COST error: evaluation error: cost limit of 1000000 exceeded: the expression does too much work",
		"HUGE-RANGE error: evaluation error: lists.range(1000000000000) exceeds the cost limit of 1000000",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CheckChart =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the limits took %s to stop the evaluation", d)
	}
}

func TestTimeout(t *testing.T) {
	defer func(c uint64, d time.Duration) { costLimit, evalTimeout = c, d }(costLimit, evalTimeout)
	costLimit = 1 << 40 // only the timeout stops these
	tests := []struct{ name, expression string }{
		// CEL checks the deadline between comprehension iterations.
		{"comprehension", "lists.range(5000).all(i, lists.range(5000).all(j, i + j >= 0))"},
		// A single call runs to its end: the evaluation is abandoned.
		{"single call", "size(lists.range(5000).distinct()) == 5000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata: {name: slow}\nrules:\n- id: SLOW\n  target: chart\n  expression: %q\n", APIVersion, Kind, tc.expression)
			p, err := Parse("slow.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			evalTimeout = 5 * time.Millisecond
			start := time.Now()
			got := summary(p.CheckChart(nil, nil))
			want := []string{"SLOW error: evaluation error: timed out after 5ms"}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("CheckChart = %q, want %q", got, want)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("the evaluation stopped after %s", d)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	type custom string
	tests := []struct {
		in, want any
	}{
		{3.0, int64(3)},
		{2.5, 2.5},
		{float32(4), int64(4)},
		{1e300, 1e300},
		{7, int64(7)},
		{uint8(7), int64(7)},
		{json.Number("12"), int64(12)},
		{json.Number("1.5"), 1.5},
		{custom("x"), "x"},
		{map[string]string{"a": "b"}, map[string]any{"a": "b"}},
		{map[any]any{1: 2.0}, map[string]any{"1": int64(2)}},
		{[]string{"a"}, []any{"a"}},
		{[]any{map[string]any{"n": 1.0}}, []any{map[string]any{"n": int64(1)}}},
		{nil, nil},
	}
	for _, tc := range tests {
		if got := normalize(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("normalize(%#v) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

// A policy is read-only: many goroutines may check objects at once.
func TestConcurrentChecks(t *testing.T) {
	p := load(t, "example-policy.yaml")
	obj := objects(t, "awscluster-us.yaml")["yaml.v3"]
	done := make(chan []string)
	for range 8 {
		go func() { done <- summary(p.CheckObject(obj, nil, nil)) }()
	}
	for range 8 {
		if got := <-done; len(got) != 1 || !strings.HasPrefix(got[0], "ACME-AWS-001 ") {
			t.Errorf("CheckObject = %q", got)
		}
	}
}

// The CEL libraries that rules can count on, and how object data looks to
// them.
func TestEnvironment(t *testing.T) {
	obj := map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta1",
		"kind":       "Cluster",
		"metadata":   map[string]any{"name": "prod-eu", "labels": map[string]any{"tier": "gold"}},
		"spec":       map[string]any{"replicas": 3.0, "ratio": 0.5, "zones": []any{"a", "b"}},
	}
	tests := []string{
		// has() and optional types
		"has(object.spec) && !has(object.status)",
		"object.?status.?phase.orValue('none') == 'none'",
		"object.metadata.?labels[?'tier'].orValue('') == 'gold'",
		// strings (ext.Strings v2)
		"'a,b'.split(',') == ['a', 'b'] && 'AbC'.lowerAscii() == 'abc' && object.metadata.name.indexOf('-') == 4",
		"['x', 'y'].join('-') == 'x-y' && '%s=%d'.format(['n', 1]) == 'n=1'",
		// lists (ext.Lists v3), sets, two-variable comprehensions
		"[3, 1, 2].sort() == [1, 2, 3] && [1, [2]].flatten() == [1, 2] && size(lists.range(3)) == 3",
		"sets.contains(object.spec.zones, ['a']) && sets.intersects(['b'], object.spec.zones)",
		"object.metadata.labels.all(k, v, k.size() > 0 && v != '')",
		"object.spec.zones.transformList(i, z, z + string(i)) == ['a0', 'b1']",
		// standard macros and regular expressions
		"object.spec.zones.exists(z, z.matches('^[a-c]$')) && object.spec.zones.map(z, z + '!') == ['a!', 'b!']",
		// literals may mix dyn and static types
		"object.metadata.name in ['other', object.metadata.name]",
		// whole numbers are int (even from JSON), others double; comparisons mix them
		"object.spec.replicas % 2 == 1 && type(object.spec.replicas) == int",
		"type(object.spec.ratio) == double && object.spec.ratio < 1 && object.spec.replicas > 2.5",
		"double(object.spec.replicas) * 1.5 == 4.5",
	}
	for _, expr := range tests {
		t.Run(expr, func(t *testing.T) {
			src := fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata: {name: env}\nrules:\n- id: ENV\n  expression: %q\n", APIVersion, Kind, expr)
			p, err := Parse("env.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if v := summary(p.CheckObject(obj, nil, nil)); v != nil {
				t.Errorf("%s: %q", expr, v)
			}
		})
	}
}
