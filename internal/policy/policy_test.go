package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		file string
		want []string // lines of the error, after "testdata/invalid/FILE:"
	}{
		{"bad-yaml.yaml", []string{"8: invalid YAML: did not find expected key"}},
		{"empty.yaml", []string{"1: empty policy file"}},
		{"two-documents.yaml", []string{"9: a policy file holds one YAML document"}}, // the second document's first line
		{"not-a-mapping.yaml", []string{"1: a policy must be a mapping, not a list"}},
		{"bad-api-version.yaml", []string{`1: apiVersion "kbook.k0rdent.io/v1" is not supported (want kbook.k0rdent.io/v1alpha1)`}},
		{"missing-kind.yaml", []string{"1: kind is required (TemplatePolicy)"}},
		{"missing-name.yaml", []string{"3: metadata.name is required"}},
		{"unknown-key.yaml", []string{`5: unknown key "spec" (known: apiVersion, kind, metadata, rules)`}},
		{"unknown-rule-key.yaml", []string{`8: rule A: unknown key "severty" (known: id, severity, target, match, expression, message, messageExpression)`}},
		{"unknown-match-key.yaml", []string{
			"8: rule A: match.kinds is required (leave out match to check every object)",
			`9: rule A: match: unknown key "kind" (known: kinds)`,
		}},
		{"no-rules.yaml", []string{"5: rules: the list is empty"}},
		{"missing-id.yaml", []string{"8: rules[2]: id is required"}},
		{"bad-id.yaml", []string{`6: rules[1]: id "acme 1": use letters, digits, '.', '_' and '-'`}},
		{"missing-expression.yaml", []string{"6: rule A: expression is required"}},
		{"expression-not-string.yaml", []string{"7: rule A: expression: want a string, not a list"}},
		{"duplicate-id.yaml", []string{"8: rule ACME001: duplicate id (first used at line 6)"}},
		{"duplicate-key.yaml", []string{`8: rules[1]: duplicate key "expression" (first at line 7)`}},
		{"bad-severity.yaml", []string{`7: rule A: severity "fatal": want error, warning or info`}},
		{"bad-target.yaml", []string{`7: rule A: target "cluster": want object or chart`}},
		{"undeclared.yaml", []string{"7: rule ACME001: expression: column 23: undeclared reference to 'regions'"}},
		{"syntax-error.yaml", []string{"7: rule ACME001: expression: column 24: Syntax error: mismatched input '<EOF>' expecting {'[', ']', '{', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"}},
		// The second line of a literal block is line 9 of the file.
		{"block-error.yaml", []string{"9: rule ACME001: expression: column 26: undeclared reference to 'treshold'"}},
		{"not-bool.yaml", []string{"7: rule ACME001: expression must return bool, not int"}},
		{"message-not-string.yaml", []string{"8: rule ACME001: messageExpression must return string, not int"}},
		{"match-on-chart.yaml", []string{"8: rule ACME001: match is only for object rules (this rule has target: chart)"}},
		{"object-in-chart-rule.yaml", []string{"8: rule ACME001: expression: column 5: undeclared reference to 'object' (chart rules see chart and values only)"}},
		{"bad-kinds.yaml", []string{
			`8: rule ACME001: match.kinds: "cluster.x-k8s.io/v1beta1/Cluster": want Kind, group/Kind or group/* (such as AWSCluster or infrastructure.cluster.x-k8s.io/AWSCluster)`,
			`8: rule ACME001: match.kinds: "awsCluster": want Kind, group/Kind or group/* (such as AWSCluster or infrastructure.cluster.x-k8s.io/AWSCluster)`,
			`8: rule ACME001: match.kinds: "/Secret": want Kind, group/Kind or group/* (such as AWSCluster or infrastructure.cluster.x-k8s.io/AWSCluster)`,
		}},
		{"empty-kinds.yaml", []string{"8: rule ACME001: match.kinds: the list is empty (leave out match to check every object)"}},
		{"several-errors.yaml", []string{
			`7: rule A: severity "fatal": want error, warning or info`,
			"9: rule A: duplicate id (first used at line 6)",
			"10: rule A: expression must return bool, not int",
			"13: rule C: expression: column 1: undeclared reference to 'object' (chart rules see chart and values only)",
		}},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		seen[tc.file] = true
		t.Run(tc.file, func(t *testing.T) {
			file := filepath.Join("testdata", "invalid", tc.file)
			p, err := Load(file)
			if err == nil {
				t.Fatalf("Load(%s) = %d rules, want an error", file, len(p.Rules))
			}
			var want []string
			for _, w := range tc.want {
				want = append(want, file+":"+w)
			}
			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, want) {
				t.Errorf("Load(%s) error:\n%s\nwant:\n%s", file, err, strings.Join(want, "\n"))
			}
		})
	}
	// Every fixture has a case.
	files, _ := filepath.Glob(filepath.Join("testdata", "invalid", "*.yaml"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("%s has no test case", f)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join("testdata", "no-such-policy.yaml"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "load policy: ") {
		t.Errorf("Load(missing) error = %v, want a wrapped not-exist error", err)
	}
}

func TestLoad(t *testing.T) {
	p, err := Load(filepath.Join("testdata", "checks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if p.File != filepath.Join("testdata", "checks.yaml") || p.Name != "checks" {
		t.Errorf("File, Name = %q, %q", p.File, p.Name)
	}
	type rule struct {
		ID       string
		Severity findings.Severity
		Target   string
		Kinds    []string
		Line     int
	}
	want := []rule{
		{"KIND-BARE", findings.Error, TargetObject, []string{"AWSCluster"}, 7},
		{"KIND-GROUP", findings.Error, TargetObject, []string{"cluster.x-k8s.io/Cluster"}, 12},
		{"KIND-GROUP-STAR", findings.Warning, TargetObject, []string{"infrastructure.cluster.x-k8s.io/*"}, 17},
		{"KIND-CORE", findings.Error, TargetObject, []string{"ConfigMap"}, 23},
		{"ALL-NAME", findings.Warning, TargetObject, nil, 28},
		{"VALUES-OBJECT", findings.Error, TargetObject, []string{"K0sControlPlane"}, 32},
		{"MESSAGE-ERROR", findings.Error, TargetObject, []string{"MachineDeployment"}, 39},
		{"MESSAGE-EMPTY", findings.Error, TargetObject, []string{"MachineDeployment"}, 45},
		{"NOT-BOOL", findings.Error, TargetObject, []string{"Secret"}, 51},
		{"CHART-K8S", findings.Error, TargetChart, nil, 55},
		{"CHART-OWNER", findings.Error, TargetChart, nil, 60},
		{"CHART-REPLICAS", findings.Error, TargetChart, nil, 65},
		{"CHART-KEYWORDS", findings.Warning, TargetChart, nil, 70},
	}
	var got []rule
	for _, r := range p.Rules {
		got = append(got, rule{r.ID, r.Severity, r.Target, r.Kinds, r.Line})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rules:\n%+v\nwant\n%+v", got, want)
	}
	r := p.Rules[0]
	if r.Expression != "object.spec.region.startsWith('eu-')" || r.MessageExpression != "'region ' + object.spec.region + ' is not allowed'" || r.Message != "" {
		t.Errorf("rule 0 = %+v", r)
	}
}

func TestParseExamplePolicy(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "example-policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse("example-policy.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if p.File != "example-policy.yaml" || p.Name != "acme-compliance" || len(p.Rules) != 11 {
		t.Errorf("Parse(example-policy.yaml) = %q %q with %d rules", p.File, p.Name, len(p.Rules))
	}
}

func TestParseKind(t *testing.T) {
	tests := []struct {
		in      string
		want    kindMatch
		wantErr bool
	}{
		{"AWSCluster", kindMatch{anyGroup: true, kind: "AWSCluster"}, false},
		{"cluster.x-k8s.io/Cluster", kindMatch{group: "cluster.x-k8s.io", kind: "Cluster"}, false},
		{"infrastructure.cluster.x-k8s.io/*", kindMatch{group: "infrastructure.cluster.x-k8s.io", kind: "*"}, false},
		{"*", kindMatch{}, true},
		{"cluster", kindMatch{}, true},
		{"/Cluster", kindMatch{}, true},
		{"cluster.x-k8s.io/", kindMatch{}, true},
		{"cluster.x-k8s.io/v1beta1/Cluster", kindMatch{}, true},
		{"Cluster ", kindMatch{}, true},
	}
	for _, tc := range tests {
		got, err := parseKind(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parseKind(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestMatches(t *testing.T) {
	obj := func(apiVersion, kind string) map[string]any {
		return map[string]any{"apiVersion": apiVersion, "kind": kind}
	}
	tests := []struct {
		kinds []string
		obj   map[string]any
		want  bool
	}{
		{nil, obj("v1", "ConfigMap"), true},
		{[]string{"ConfigMap"}, obj("v1", "ConfigMap"), true},
		{[]string{"Cluster"}, obj("cluster.x-k8s.io/v1beta1", "Cluster"), true},
		{[]string{"Cluster"}, obj("example.com/v1", "Cluster"), true},
		{[]string{"cluster.x-k8s.io/Cluster"}, obj("cluster.x-k8s.io/v1beta1", "Cluster"), true},
		{[]string{"cluster.x-k8s.io/Cluster"}, obj("cluster.x-k8s.io/v1beta2", "Cluster"), true},
		{[]string{"cluster.x-k8s.io/Cluster"}, obj("example.com/v1", "Cluster"), false},
		{[]string{"cluster.x-k8s.io/Cluster"}, obj("v1", "Cluster"), false},
		{[]string{"cluster.x-k8s.io/Cluster"}, obj("cluster.x-k8s.io/v1beta1", "MachineDeployment"), false},
		{[]string{"AWSCluster", "cluster.x-k8s.io/Cluster"}, obj("cluster.x-k8s.io/v1beta1", "Cluster"), true},
		{[]string{"infrastructure.cluster.x-k8s.io/*"}, obj("infrastructure.cluster.x-k8s.io/v1beta2", "AWSMachineTemplate"), true},
		{[]string{"infrastructure.cluster.x-k8s.io/*"}, obj("cluster.x-k8s.io/v1beta1", "Cluster"), false},
		{[]string{"Cluster"}, map[string]any{}, false},
		{[]string{"Cluster"}, map[string]any{"kind": 1}, false},
	}
	for _, tc := range tests {
		r := &Rule{Kinds: tc.kinds}
		for _, k := range tc.kinds {
			km, err := parseKind(k)
			if err != nil {
				t.Fatal(err)
			}
			r.kinds = append(r.kinds, km)
		}
		if got := r.matches(tc.obj); got != tc.want {
			t.Errorf("kinds %v matches(%v) = %v, want %v", tc.kinds, tc.obj, got, tc.want)
		}
	}
}
