package template

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// fixtureWant is what each rule's -fail fixture must report: every finding
// (but the infos of other rules, such as SCHEMA001's no-CRDs info) as
// "RULE severity FILE:LINE [path]". Each -pass fixture must report nothing
// at all (again but other rules' infos).
var fixtureWant = map[string][]string{
	"CHART001": {"CHART001 error Chart.yaml:5"},
	"CHART002": {"CHART002 error Chart.yaml:7"},
	"CHART003": {"CHART003 error Chart.yaml:1"},
	// A library chart renders nothing, hence no Cluster either.
	"CHART004": {"CHART004 error Chart.yaml:6", "RENDER004 error templates/"},
	"CHART005": {"CHART005 error Chart.yaml:7"},
	"CHART006": {"CHART006 error templates/dockercluster.yaml"},
	"CHART007": {"CHART007 info Chart.yaml:1"},

	"K0RDENT001": {"K0RDENT001 warning Chart.yaml:9"},
	"K0RDENT002": {"K0RDENT002 error Chart.yaml:10"},
	"K0RDENT003": {"K0RDENT003 error Chart.yaml:10"},
	"K0RDENT004": {"K0RDENT004 error Chart.yaml:11"},
	"K0RDENT005": {"K0RDENT005 warning Chart.yaml:14"},
	"K0RDENT006": {"K0RDENT006 warning Chart.yaml:10"},
	"K0RDENT007": {"K0RDENT007 warning Chart.yaml:13"},
	"K0RDENT008": {"K0RDENT008 warning Chart.yaml:9"},
	"K0RDENT009": {"K0RDENT009 error Chart.yaml:14"},
	"K0RDENT010": {"K0RDENT010 error Chart.yaml:14 kubernetes.version"},

	"VALUES001": {"VALUES001 warning values.schema.json"},
	"VALUES002": {"VALUES002 error values.schema.json:66 /properties/workersNumber/type"},
	"VALUES003": {"VALUES003 error values.yaml:26 workersNumber"},
	"VALUES004": {"VALUES004 error ci/ha.yaml:3 controlPlane.replicas"},
	"VALUES005": {"VALUES005 error values.schema.json:5 clusterIdentity"},
	"VALUES006": {"VALUES006 error testdata/charts/VALUES006-fail/clusterdeployment.yaml:12 workersNumber"},
	"VALUES007": {"VALUES007 warning testdata/charts/VALUES007-fail/values.dev.yaml:1 workerNumber"},
	"VALUES008": {"VALUES008 warning testdata/charts/VALUES008-fail/values.dev.yaml:2 region"},
	"VALUES009": {"VALUES009 warning testdata/charts/VALUES009-fail/values.dev.yaml:2 clusterIdentity"},
	"VALUES010": {"VALUES010 warning Chart.yaml:14 base.clusterLabels"},
	"VALUES011": {"VALUES011 warning templates/kubeadmcontrolplane.yaml:6 controlPlane.replica"},

	"RENDER001": {"RENDER001 error templates/kubeadmcontrolplane.yaml:7", "VALUES011 warning templates/kubeadmcontrolplane.yaml:7 controlPlane.flavor"},
	"RENDER011": {"RENDER011 info templates/kubeadmcontrolplane.yaml:7 controlPlane.flavor"},
	"RENDER012": {"RENDER012 error templates/servicetemplate.yaml:9 spec.helm.chartSpec.interval"},
	"RENDER002": {"RENDER002 error templates/settings.yaml"},
	"RENDER003": {"RENDER003 error templates/dockercluster.yaml:5 metadata.namespace"},
	"RENDER004": {"RENDER004 error templates/"},
	"RENDER005": {"RENDER005 error templates/machinedeployment.yaml:23 spec.template.spec.infrastructureRef"},
	"RENDER006": {"RENDER006 error templates/cluster.yaml:22 spec.infrastructureRef"},
	"RENDER007": {"RENDER007 error templates/certificate.yaml:2", "RENDER007 error templates/ippool.yaml:2"},
	"RENDER008": {"RENDER008 error templates/settings.yaml:4 metadata.name"},
	"RENDER009": {"RENDER009 warning templates/cluster.yaml:4 metadata.name"},
	"RENDER010": {"RENDER010 warning templates/machinedeployment.yaml:1 apiVersion"},

	"SCHEMA001": {"SCHEMA001 info"},
	"SCHEMA002": {"SCHEMA002 error templates/machinedeployment.yaml:10 spec.rollout.strategy.type"},
	"SCHEMA003": {"SCHEMA003 info templates/settings.yaml:2"},
	"SCHEMA004": {"SCHEMA004 info values.yaml:22 controlPlane.endpoint"},

	"SEC001": {"SEC001 error templates/priorityclass.yaml:2"},
	"SEC002": {"SEC002 error templates/role.yaml:2"},
	"SEC003": {"SEC003 error crds/widgets.yaml:1", "SEC003 error templates/webhook.yaml:2"},
	"SEC004": {"SEC004 error templates/deployment.yaml:2"},
	"SEC005": {
		"SEC005 error templates/clusterresourceset.yaml:13 spec.podTemplate.spec.hostNetwork",
		"SEC005 error templates/clusterresourceset.yaml:18 spec.podTemplate.spec.containers[0].securityContext.privileged",
		"SEC005 error templates/clusterresourceset.yaml:21 spec.podTemplate.spec.volumes[0].hostPath",
	},
	"SEC006": {"SEC006 error templates/dockermachinetemplate-controlplane.yaml:9 spec.template.spec.customImage"},
	"SEC007": {"SEC007 error values.yaml:34 admin.password"},
	"SEC008": {
		"SEC008 error templates/_lookups.tpl:2",
		"SEC008 error templates/_lookups.tpl:5",
		"SEC008 error templates/_lookups.tpl:8",
		"SEC008 warning templates/_lookups.tpl:11",
		"SEC008 warning templates/_lookups.tpl:15",
		"SEC008 error templates/cluster.yaml:14",
	},

	// Policy violations carry the policy rule's ID and severity.
	"POLICY": {"ORG-K8S-135 warning Chart.yaml:1", "ORG-TEAM-LABEL error templates/cluster.yaml:2"},
}

// fixtureMessages are words the -fail fixtures' messages must contain: the
// facts about kcm a user needs to understand the finding.
var fixtureMessages = map[string]string{
	"CHART001":   "yaml: line 5",
	"CHART002":   "maintainers must not contain empty or null nodes",
	"CHART006":   ".Release.Time has been removed",
	"CHART007":   "keyed by contract version: cluster.x-k8s.io/v1beta1, cluster.x-k8s.io/v1beta2",
	"K0RDENT001": "spec.providers",
	"K0RDENT002": "empty entry",
	"K0RDENT003": "infrastructure-docker, infrastructure-aws",
	"K0RDENT004": "one contract version per provider",
	"K0RDENT005": `"infrastructure-aws"`,
	"K0RDENT006": "bootstrap-kubeadm",
	"K0RDENT007": "pins v1beta1, but the template's bootstrap.cluster.x-k8s.io objects are v1beta2 (KubeadmConfigTemplate)",
	"K0RDENT008": "spec.k8sVersion",
	"K0RDENT009": `"1.34"`,
	"K0RDENT010": "v1.33.4 but the default kubernetes.version is v1.34.1 (values.yaml:16)",
	"VALUES002":  "value must be one of",
	"VALUES003":  "workersNumber: got string, want integer",
	"VALUES004":  "minimum",
	"VALUES005":  "Credential's identity",
	"VALUES006":  "workersNumber: minimum: got -1, want 0",
	"VALUES011":  "did you mean .Values.controlPlane.replicas?",
	"RENDER001":  "nil pointer evaluating interface {}.name",
	"RENDER012":  `"10m" is written back by kcm as "10m0s"`,
	"RENDER011":  "controlPlane.flavor (templates/kubeadmcontrolplane.yaml:7); a ClusterDeployment must set them",
	"RENDER002":  "no kind",
	"RENDER003":  `"kcm-system"`,
	"RENDER005":  `"render-test-workers" is not rendered`,
	"RENDER006":  "{apiGroup, kind, name}",
	"RENDER007":  "served by provider ipam-in-cluster (the cluster.x-k8s.io/provider label of its CRD)",
	"RENDER008":  `"cluster-settings"`,
	"RENDER009":  `"render-test-cluster"`,
	"SCHEMA001":  "no CRDs given: objects were not checked against schemas (use --k0rdent, --crds or --kubeconfig)",
	"SCHEMA002":  `Unsupported value: "Recreate"`,
	"SCHEMA003":  "not checked",
	"SCHEMA004":  "set controlPlane.endpoint in the ClusterDeployment's spec.config: the defaults leave it empty, and with the defaults alone the API server rejects KubeadmControlPlane.spec.kubeadmConfigSpec.clusterConfiguration.controlPlaneEndpoint: should be at least 1 chars long",
	"SEC006":     `"kindest/node:v1.34.1" is from docker.io`,
	"POLICY":     "policy platform-team",
}

func describe(f findings.Finding) string {
	s := fmt.Sprintf("%s %s", f.Rule, f.Severity)
	if f.File != "" {
		s += " " + f.File
		if f.Line > 0 {
			s += fmt.Sprintf(":%d", f.Line)
		}
	}
	if f.Path != "" {
		s += " " + f.Path
	}
	return s
}

// relevant drops the infos of other rules than the fixture's: the no-CRDs
// info that every fixture without CRDs gets, the kinds a fixture's own
// CRDs do not know. Infos are never problems.
func relevant(rule string, fs []findings.Finding) []findings.Finding {
	return slices.DeleteFunc(slices.Clone(fs), func(f findings.Finding) bool {
		return f.Severity == findings.Info && f.Rule != rule
	})
}

func TestRuleFixtures(t *testing.T) {
	for _, rule := range Registry.Rules() {
		want, ok := fixtureWant[rule.ID]
		if !ok {
			t.Errorf("%s: no expectation in fixtureWant", rule.ID)
			continue
		}
		t.Run(rule.ID+"-fail", func(t *testing.T) {
			t.Parallel()
			dir, opts := setupFixture(t, rule.ID+"-fail")
			res, err := ValidateChart(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := relevant(rule.ID, res.Findings)
			var gotS []string
			for _, f := range got {
				gotS = append(gotS, describe(f))
			}
			if !slices.Equal(gotS, want) {
				t.Errorf("findings:\n  got  %q\n  want %q\nmessages:\n%s", gotS, want, messages(got))
			}
			if sub := fixtureMessages[rule.ID]; sub != "" && !slices.ContainsFunc(got, func(f findings.Finding) bool { return strings.Contains(f.Message, sub) }) {
				t.Errorf("no message contains %q:\n%s", sub, messages(got))
			}
			for _, f := range got {
				if f.Message == "" {
					t.Errorf("%s: empty message", describe(f))
				}
			}
		})
		t.Run(rule.ID+"-pass", func(t *testing.T) {
			t.Parallel()
			dir, opts := setupFixture(t, rule.ID+"-pass")
			res, err := ValidateChart(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := relevant(rule.ID, res.Findings); len(got) > 0 {
				t.Errorf("want no findings, got:\n%s", messages(got))
			}
		})
	}
}

func messages(fs []findings.Finding) string {
	var sb strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&sb, "  %s: %s\n", describe(f), f.Message)
	}
	return sb.String()
}

// Every rule has a -pass and a -fail fixture, and every fixture belongs to
// a rule.
func TestFixturesCoverRules(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range Registry.Rules() {
		ids[r.ID] = true
		for _, suffix := range []string{"-pass", "-fail"} {
			if _, err := os.Stat(filepath.Join(chartsDir, r.ID+suffix, "fixture.yaml")); err != nil {
				t.Errorf("%s has no %s fixture: %v", r.ID, suffix, err)
			}
		}
	}
	dirs, err := os.ReadDir(chartsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d.Name() == "base" {
			continue
		}
		id, _, ok := strings.Cut(d.Name(), "-")
		if !ok || !ids[id] || (!strings.HasSuffix(d.Name(), "-pass") && !strings.HasSuffix(d.Name(), "-fail")) {
			t.Errorf("fixture %s: not <RULE>-pass or <RULE>-fail of a registered rule", d.Name())
		}
	}
	for id := range fixtureWant {
		if !ids[id] {
			t.Errorf("fixtureWant has %s, which is not a registered rule", id)
		}
	}
}

func TestRegistry(t *testing.T) {
	rules := Registry.Rules()
	if !slices.IsSortedFunc(rules, func(a, b findings.Rule) int { return strings.Compare(a.ID, b.ID) }) {
		t.Error("Registry.Rules() is not sorted by ID")
	}
	seen := map[string]bool{}
	for _, r := range rules {
		if seen[r.ID] {
			t.Errorf("%s registered twice", r.ID)
		}
		seen[r.ID] = true
		if !slices.Contains(Registry.Categories(), r.Category) {
			t.Errorf("%s: unknown category %q", r.ID, r.Category)
		}
		if r.Severity != findings.Error && r.Severity != findings.Warning && r.Severity != findings.Info {
			t.Errorf("%s: severity %q", r.ID, r.Severity)
		}
		if r.Title == "" || strings.Contains(r.Title, "\n") || strings.HasSuffix(r.Title, ".") {
			t.Errorf("%s: title %q must be one line without a final period", r.ID, r.Title)
		}
		if len(r.Description) < 150 {
			t.Errorf("%s: description too short to explain the rule: %q", r.ID, r.Description)
		}
		if strings.Contains(r.Description, "\t") {
			t.Errorf("%s: description has a tab", r.ID)
		}
	}
	// Every rule ID the checks use is registered.
	for _, id := range []string{
		ruleChartLoad, ruleChartValidate, ruleChartAPIVersion, ruleChartType, ruleChartVersion, ruleChartLint, ruleProviderChart,
		ruleProviderMissing, ruleProviderMalformed, ruleOneInfrastructure, ruleContractInvalid, ruleContractUnlisted,
		ruleContractMissing, ruleContractVersion, ruleK8sVersionMissing, ruleK8sVersionInvalid, ruleK8sVersionMismatch,
		ruleSchemaMissing, ruleSchemaInvalid, ruleDefaultsInvalid, ruleCIValuesInvalid, ruleInjectedRejected,
		ruleConfigInvalid, ruleConfigNotInSchema, ruleConfigUnread, ruleConfigOverwritten, ruleInjectedReach, ruleValueUndefined,
		ruleRender, ruleRenderParse, ruleRenderNamespace, ruleOneCluster, ruleRefResolve, ruleRefFormat,
		ruleProviderGroup, ruleReleaseName, ruleClusterName, ruleDeprecatedAPI, ruleRequiredValues, ruleDuration,
		ruleNoCRDs, ruleSchemaViolation, ruleUnknownKind, ruleSchemaInputs,
		ruleClusterScoped, ruleRBAC, ruleAdmission, ruleWorkload, rulePodSecurity, ruleRegistry, ruleSecretDefault, ruleLookup,
		rulePolicy,
	} {
		if !seen[id] {
			t.Errorf("%s is used but not registered", id)
		}
		delete(seen, id)
	}
	for id := range seen {
		t.Errorf("%s is registered but no check uses it", id)
	}
	if _, ok := Registry.Lookup("CHART001"); !ok {
		t.Error("Registry.Lookup(CHART001) not found")
	}
	if _, ok := Registry.Lookup("NOPE"); ok {
		t.Error("Registry.Lookup(NOPE) found")
	}
}
