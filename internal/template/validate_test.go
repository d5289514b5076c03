package template

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

const baseChart = chartsDir + "/base"

func TestBaseChartIsClean(t *testing.T) {
	res, err := ValidateChart(baseChart, ChartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Without CRDs the only finding is the info that says so.
	if got := describeAll(res.Findings); !slices.Equal(got, []string{"SCHEMA001 info"}) {
		t.Errorf("findings: %q\n%s", got, messages(res.Findings))
	}
	if res.Errors() != 0 || res.Warnings() != 0 || res.Infos() != 1 {
		t.Errorf("Errors() = %d, Warnings() = %d, Infos() = %d", res.Errors(), res.Warnings(), res.Infos())
	}
}

// The base chart, its ci/*.yaml files and a ClusterDeployment config pass
// the real CAPI CRDs (v1.14: core, kubeadm, CAPD), schema and CEL rules.
func TestBaseChartWithCAPICRDs(t *testing.T) {
	v := capiValidator(t)
	res, err := ValidateChart(baseChart, ChartOptions{Schemas: v, Config: chartsDir + "/VALUES006-pass/clusterdeployment.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) > 0 {
		t.Errorf("want no findings:\n%s", messages(res.Findings))
	}
	// And a broken object is caught, with the field path.
	dir, opts := setupFixture(t, "SCHEMA002-fail")
	res, err = ValidateChart(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Findings, func(f findings.Finding) bool {
		return f.Rule == ruleSchemaViolation && f.Path == "spec.rollout.strategy.type" && f.Object == "cluster.x-k8s.io/v1beta2 MachineDeployment render-test-md"
	}) {
		t.Errorf("no SCHEMA002 finding for the rollout strategy:\n%s", messages(res.Findings))
	}
}

func describeAll(fs []findings.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, describe(f))
	}
	return out
}

// A packaged chart (.tgz) gives the same findings as its directory, with
// chart-relative files.
func TestArchive(t *testing.T) {
	dir, opts := setupFixture(t, "RENDER005-fail")
	ch, err := loader.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tgz, err := chartutil.Save(ch, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fromDir, err := ValidateChart(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	fromTgz, err := ValidateChart(tgz, opts)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := describeAll(fromDir.Findings), describeAll(fromTgz.Findings); !slices.Equal(a, b) {
		t.Errorf("directory: %q\narchive:   %q", a, b)
	}
	var sb strings.Builder
	_ = findings.WriteText(&sb, fromTgz)
	if !strings.Contains(sb.String(), tgz+"/templates/machinedeployment.yaml:23: error:") {
		t.Errorf("text output does not locate the finding inside the archive:\n%s", sb.String())
	}
}

func TestBrokenArchive(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "broken-1.0.0.tgz")
	if err := os.WriteFile(bad, []byte("not a gzip file"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := ValidateChart(bad, ChartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Rule != ruleChartLoad {
		t.Fatalf("want one CHART001 finding, got:\n%s", messages(res.Findings))
	}
}

func TestNotAChart(t *testing.T) {
	res, err := ValidateChart(t.TempDir(), ChartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := describeAll(res.Findings); !slices.Equal(got, []string{"CHART001 error Chart.yaml"}) {
		t.Errorf("findings: %q", got)
	}
}

func TestMissingPaths(t *testing.T) {
	if _, err := ValidateChart(filepath.Join(t.TempDir(), "nope"), ChartOptions{}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing chart: err = %v, want one naming the path", err)
	}
	if _, err := ValidateChart(baseChart, ChartOptions{Config: "no-such-config.yaml"}); err == nil || !strings.Contains(err.Error(), "no-such-config.yaml") {
		t.Errorf("missing config: err = %v, want one naming the path", err)
	}
}

// A config that does not parse is bad input, at its line, for ValidateChart
// and Render alike; so is a chart Helm cannot load.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("workersNumber: 1\ncontrolPlane: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(dir, "list.yaml")
	if err := os.WriteFile(list, []byte("- a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{cfg, cfg + ":2: the config does not parse: "},
		{list, list + ":1: the config is not a map of values"},
	} {
		if _, err := ValidateChart(baseChart, ChartOptions{Config: c.file}); err == nil || !findings.IsInput(err) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Validate: err = %v, want bad input starting %q", err, c.want)
		}
		if _, err := Render(baseChart, RenderOptions{Config: c.file}); err == nil || !findings.IsInput(err) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Render: err = %v, want bad input starting %q", err, c.want)
		}
	}
	broken, _ := setupFixture(t, "CHART001-fail")
	res, err := ValidateChart(broken, ChartOptions{})
	if err != nil || Registry.ExitCode(res) != findings.ExitBadInput {
		t.Errorf("Validate of a chart Helm cannot load: err %v, exit %d, want a CHART001 finding and exit 2", err, Registry.ExitCode(res))
	}
	if _, err := Render(broken, RenderOptions{}); !findings.IsInput(err) || !strings.Contains(err.Error(), "Chart.yaml:5: ") {
		t.Errorf("Render of a chart Helm cannot load: err = %v, want bad input at Chart.yaml:5", err)
	}
	if _, err := ValidateChart(filepath.Join(dir, "nope"), ChartOptions{}); !findings.IsInput(err) {
		t.Errorf("Validate of a missing chart: err = %v, want bad input", err)
	}
	invalid, _ := setupFixture(t, "CHART002-fail")
	if _, err := Render(invalid, RenderOptions{}); err == nil || findings.IsInput(err) {
		t.Errorf("Render of a chart with invalid metadata: err = %v, want a failure (exit 1, as validate's CHART002), not bad input", err)
	}
}

// The ClusterDeployment config is rendered: a config that breaks rendering
// is reported for that config only.
func TestConfigIsRendered(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("clusterLabels:\n  team: [a, b]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := capiValidator(t)
	res, err := ValidateChart(baseChart, ChartOptions{Config: cfg, Schemas: v})
	if err != nil {
		t.Fatal(err)
	}
	var configs []string
	for _, f := range res.Findings {
		configs = append(configs, f.Rule+" "+f.Config)
	}
	// The schema says labels are strings (VALUES006) and the API server
	// would reject the Cluster (SCHEMA002), with this config only.
	for _, want := range []string{"VALUES006 " + cfg, "SCHEMA002 " + cfg} {
		if !slices.Contains(configs, want) {
			t.Errorf("want %q in %q\n%s", want, configs, messages(res.Findings))
		}
	}
}

func TestDisable(t *testing.T) {
	dir, opts := setupFixture(t, "POLICY-fail")
	opts.Disable = []string{"SCHEMA001", "ORG-TEAM-LABEL"}
	res, err := ValidateChart(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := describeAll(res.Findings); !slices.Equal(got, []string{"ORG-K8S-135 warning Chart.yaml:1"}) {
		t.Errorf("findings: %q", got)
	}
}

func TestReleaseNameAndNamespaceOptions(t *testing.T) {
	res, err := ValidateChart(baseChart, ChartOptions{ReleaseName: "prod-eu", Namespace: "team-a", Disable: []string{ruleNoCRDs}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) > 0 {
		t.Errorf("want no findings:\n%s", messages(res.Findings))
	}
	dir, opts := setupFixture(t, "RENDER009-fail")
	opts.ReleaseName = "prod-eu"
	res, err = ValidateChart(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Findings, func(f findings.Finding) bool {
		return f.Rule == ruleClusterName && f.Object == "cluster.x-k8s.io/v1beta2 Cluster prod-eu-cluster"
	}) {
		t.Errorf("want RENDER009 for prod-eu-cluster:\n%s", messages(res.Findings))
	}
}

func TestRender(t *testing.T) {
	objs, err := Render(baseChart, RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.Template+" "+o.Unstructured.GetKind()+" "+o.Unstructured.GetName())
	}
	want := []string{
		"templates/cluster.yaml Cluster render-test",
		"templates/dockercluster.yaml DockerCluster render-test",
		"templates/dockermachinetemplate-controlplane.yaml DockerMachineTemplate render-test-cp-mt",
		"templates/dockermachinetemplate-worker.yaml DockerMachineTemplate render-test-worker-mt",
		"templates/kubeadmconfigtemplate.yaml KubeadmConfigTemplate render-test-worker",
		"templates/kubeadmcontrolplane.yaml KubeadmControlPlane render-test-cp",
		"templates/machinedeployment.yaml MachineDeployment render-test-md",
	}
	if !slices.Equal(got, want) {
		t.Errorf("objects:\n  got  %q\n  want %q", got, want)
	}
	// Integers are int64, as the API server decodes them.
	if r, _, _ := unstructuredInt(objs[6].Unstructured.Object, "spec", "replicas"); r != 1 {
		t.Errorf("MachineDeployment replicas = %v", r)
	}
}

func unstructuredInt(obj map[string]any, fields ...string) (int64, bool, error) {
	var v any = obj
	for _, f := range fields {
		m, ok := v.(map[string]any)
		if !ok {
			return 0, false, nil
		}
		v = m[f]
	}
	i, ok := v.(int64)
	return i, ok, nil
}

func TestRenderOptions(t *testing.T) {
	objs, err := Render(baseChart, RenderOptions{
		Config:      chartsDir + "/VALUES006-pass/clusterdeployment.yaml",
		ReleaseName: "dev",
		Namespace:   "team-a",
		Values:      map[string]any{"global": map[string]any{"registry": "registry.example.com"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		u := o.Unstructured
		switch u.GetKind() {
		case "MachineDeployment":
			if r, _, _ := unstructuredInt(u.Object, "spec", "replicas"); r != 2 {
				t.Errorf("workersNumber from the ClusterDeployment's spec.config: replicas = %d, want 2", r)
			}
		case "KubeadmControlPlane":
			repo, _, _ := nestedString(u.Object, "spec", "kubeadmConfigSpec", "clusterConfiguration", "imageRepository")
			if repo != "registry.example.com" {
				t.Errorf("imageRepository = %q, want the injected global.registry", repo)
			}
		case "Cluster":
			if u.GetName() != "dev" {
				t.Errorf("Cluster name = %q", u.GetName())
			}
		}
	}
}

func nestedString(obj map[string]any, fields ...string) (string, bool, error) {
	var v any = obj
	for _, f := range fields {
		m, ok := v.(map[string]any)
		if !ok {
			return "", false, nil
		}
		v = m[f]
	}
	s, ok := v.(string)
	return s, ok, nil
}

func TestRenderErrors(t *testing.T) {
	dir, _ := setupFixture(t, "RENDER001-fail")
	_, err := Render(dir, RenderOptions{})
	if want := filepath.ToSlash(dir) + "/templates/kubeadmcontrolplane.yaml:7: "; err == nil || !strings.HasPrefix(err.Error(), want) || findings.IsInput(err) {
		t.Errorf("err = %v, want it at %s, not bad input", err, want)
	}
	dir, _ = setupFixture(t, "RENDER002-fail")
	objs, err := Render(dir, RenderOptions{})
	if err == nil || !strings.Contains(err.Error(), "templates/settings.yaml: document 1") {
		t.Errorf("err = %v, want one about templates/settings.yaml", err)
	}
	if len(objs) != 7 {
		t.Errorf("got %d objects, want the 7 that parse", len(objs))
	}
}

// TestRenderChart: kbook template render's chart is bad input when it is
// not there, named with the reason alone; one that is renders as Render
// renders it.
func TestRenderChart(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-chart")
	pass, _ := setupFixture(t, "RENDER001-pass")
	fail, _ := setupFixture(t, "RENDER001-fail")
	for _, tc := range []struct {
		name, path string
		wantErr    string
		input      bool
	}{
		{"missing", missing, "chart " + missing + ": no such file or directory", true},
		{"renders", pass, "", false},
		{"render error", fail, filepath.ToSlash(fail) + "/templates/kubeadmcontrolplane.yaml:7: ", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := RenderChart(tc.path, RenderOptions{})
			switch {
			case tc.wantErr == "" && (err != nil || len(objs) == 0):
				t.Fatalf("%d objects, error %v: want the chart's objects", len(objs), err)
			case tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) || findings.IsInput(err) != tc.input):
				t.Fatalf("error %v (bad input %v), want %q (bad input %v)", err, findings.IsInput(err), tc.wantErr, tc.input)
			}
			if tc.wantErr == "" {
				want, _ := Render(tc.path, RenderOptions{})
				if len(want) != len(objs) {
					t.Errorf("%d objects, Render gives %d", len(objs), len(want))
				}
			}
		})
	}
}

func TestInjectValues(t *testing.T) {
	user := map[string]any{"clusterIdentity": map[string]any{"name": "mine"}, "clusterLabels": map[string]any{"a": "b"}}
	got := injectValues(user, map[string]any{"global": map[string]any{"registry": "reg.example.com"}}, "ns1")
	id := got["clusterIdentity"].(map[string]any)
	if id["name"] != placeholderIdentity || id["namespace"] != "ns1" || id["kind"] != "Secret" {
		t.Errorf("clusterIdentity = %v: kcm always replaces it", id)
	}
	if got["global"].(map[string]any)["registry"] != "reg.example.com" {
		t.Errorf("global = %v: the registry of the defaults is kept", got["global"])
	}
	if got["clusterLabels"].(map[string]any)["a"] != "b" {
		t.Errorf("clusterLabels = %v: the config's labels are kept", got["clusterLabels"])
	}
	if user["clusterIdentity"].(map[string]any)["name"] != "mine" {
		t.Error("injectValues changed its input")
	}
	if l, ok := injectValues(nil, nil, "ns")["clusterLabels"].(map[string]any); !ok || len(l) != 0 {
		t.Errorf("clusterLabels = %v, want an empty map", l)
	}
	// The identity stands in for the provider's kind, as kcm's AWS
	// templates default it.
	aws := injectValues(nil, map[string]any{"clusterIdentity": map[string]any{"name": "", "kind": "AWSClusterStaticIdentity"}}, "ns")
	if id := aws["clusterIdentity"].(map[string]any); id["kind"] != "AWSClusterStaticIdentity" || id["name"] != placeholderIdentity {
		t.Errorf("clusterIdentity = %v, want the defaults' kind with a placeholder name", id)
	}
}

func TestSameVersion(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"v1.34.1", "v1.34.1", true},
		{"v1.34.1", "1.34.1", true},
		{"v1.34.1+k0s.0", "v1.34.1", true},
		{"v1.34.1+k0s.0", "v1.34.1+k0s.1", false},
		{"v1.34.1", "v1.34.2", false},
		{"v1.34.1-rc.1", "v1.34.1", false},
	} {
		if got := sameVersion(c.a, c.b); got != c.want {
			t.Errorf("sameVersion(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestRegistriesOption(t *testing.T) {
	res, err := ValidateChart(baseChart, ChartOptions{Registries: []string{"registry.example.com"}, Disable: []string{ruleNoCRDs}})
	if err != nil {
		t.Fatal(err)
	}
	// The base chart names no image: the rule has nothing to object to.
	if len(res.Findings) > 0 {
		t.Errorf("want no findings:\n%s", messages(res.Findings))
	}
	dir, opts := setupFixture(t, "SEC006-pass")
	opts.Registries = []string{"mirror.example.org"} // --registry wins over global.registry
	res, err = ValidateChart(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Findings, func(f findings.Finding) bool {
		return f.Rule == ruleRegistry && strings.Contains(f.Message, "--registry: mirror.example.org")
	}) {
		t.Errorf("want SEC006 against --registry:\n%s", messages(res.Findings))
	}
}

func TestSecretKeys(t *testing.T) {
	for key, want := range map[string]bool{
		"password": true, "adminPassword": true, "passwd": true, "token": true, "bootstrapToken": true,
		"secret": true, "clientSecret": true, "apiKey": true, "API_KEY": false, "privateKey": true, "sshPrivateKey": true,
		"passwordSecretName": false, "tokenSecretRef": false, "secretNamespace": false, "tokenFile": false,
		"username": false, "tokenURL": false,
	} {
		got := secretKeyRE.MatchString(key) && !secretRefSuffixRE.MatchString(key)
		if got != want {
			t.Errorf("%s: secret = %v, want %v", key, got, want)
		}
	}
}

func TestScanValueRefs(t *testing.T) {
	ch := loadTestChart(t, map[string]string{
		"templates/a.yaml": `a: {{ .Values.a.b }}
b: {{ index .Values "c" "d-e" }}
c: {{ index .Values.f "g" $x }}
d: {{ $.Values.h.i | quote }}
e: {{- toYaml .Values.j | nindent 2 }}
f: {{ get .Values.k "l" }}
g: {{ $root.Values.m }}`,
	})
	refs := scanValueRefs(ch)
	if refs.all {
		t.Fatal("all = true")
	}
	var got []string
	for _, p := range refs.paths {
		got = append(got, p.String())
	}
	want := []string{"a.b", "c.d-e", "f.g", "h.i", "j", "k.l", "m"}
	if !slices.Equal(got, want) {
		t.Errorf("paths = %q, want %q", got, want)
	}
	vals := map[string]any{
		"a": map[string]any{"b": 1, "x": 2},
		"j": map[string]any{"anything": map[string]any{"deep": 1}},
		"z": 3,
		"h": map[string]any{"i": []any{1}},
	}
	var unread []string
	for _, p := range refs.unread(vals) {
		unread = append(unread, p.String())
	}
	if want := []string{"a.x", "z"}; !slices.Equal(unread, want) {
		t.Errorf("unread = %q, want %q", unread, want)
	}

	whole := loadTestChart(t, map[string]string{"templates/a.yaml": `{{ toYaml .Values }}`})
	if !scanValueRefs(whole).all {
		t.Error("toYaml .Values: all = false")
	}
}

func loadTestChart(t *testing.T, files map[string]string) *chart.Chart {
	t.Helper()
	files["Chart.yaml"] = "apiVersion: v2\nname: t\nversion: 0.1.0\n"
	ch, err := loader.Load(writeChart(t, files))
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func TestVPath(t *testing.T) {
	for _, c := range []struct {
		p    vpath
		want string
	}{
		{vpath{"a", "b"}, "a.b"},
		{vpath{"workers", 0, "name"}, "workers[0].name"},
		{vpath{"labels", "app.kubernetes.io/name"}, `labels["app.kubernetes.io/name"]`},
		{vpath{"k0s-version"}, "k0s-version"},
	} {
		if got := c.p.String(); got != c.want {
			t.Errorf("%#v = %q, want %q", c.p, got, c.want)
		}
	}
}

func TestLineOf(t *testing.T) {
	n := parseYAML([]byte("a:\n  b:\n    - x\n    - y: 1\nc: 2\n"))
	for _, c := range []struct {
		p     vpath
		line  int
		exact bool
	}{
		{vpath{"a", "b", 1, "y"}, 4, true},
		{vpath{"a", "b", 0}, 3, true},
		{vpath{"c"}, 5, true},
		{vpath{"a", "nope"}, 1, false},
	} {
		line, exact := lineOf(n, c.p)
		if line != c.line || exact != c.exact {
			t.Errorf("lineOf(%v) = %d, %v; want %d, %v", c.p, line, exact, c.line, c.exact)
		}
	}
}

// Without a global default, a template that reads .Values.global.registry
// fails on management clusters where kcm injects no global values.
func TestRenderWithoutGlobal(t *testing.T) {
	dir, opts := setupFixture(t, "RENDER001-pass")
	editFile(t, filepath.Join(dir, "values.yaml"), "global:\n  registry: \"\"\n", "")
	res, err := ValidateChart(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := relevant("", res.Findings)
	if len(got) != 1 || got[0].Rule != ruleRender || got[0].File != "templates/kubeadmcontrolplane.yaml" || got[0].Line != 16 ||
		!strings.Contains(got[0].Message, "without a global registry") {
		t.Errorf("want one RENDER001 at templates/kubeadmcontrolplane.yaml:16 about global:\n%s", messages(got))
	}
}

// A template that requires a value its defaults leave empty is checked
// with placeholders, or with the config given; a config that lacks the
// value is an error; a chart that renders with nothing keeps RENDER001
// even when it is disabled.
func TestRequiredValues(t *testing.T) {
	cfgDir := t.TempDir()
	withFlavor := writeFile(t, filepath.Join(cfgDir, "flavor.yaml"), "controlPlane:\n  flavor: v1.34.1\n")
	withoutFlavor := writeFile(t, filepath.Join(cfgDir, "workers.yaml"), "workersNumber: 2\n")
	for _, tc := range []struct {
		name, fixture, config string
		disable               []string
		want                  []string // "RULE severity config"
		exit                  int
	}{
		{"placeholders", "RENDER011-fail", "", nil, []string{"RENDER011 info defaults"}, findings.ExitOK},
		{"config sets it", "RENDER011-fail", withFlavor, nil, []string{"RENDER011 info defaults"}, findings.ExitOK},
		{"config lacks it", "RENDER011-fail", withoutFlavor, nil, []string{"RENDER001 error " + withoutFlavor, "RENDER011 info defaults"}, findings.ExitErrors},
		{"disabled, renders nothing", "RENDER001-fail", "", []string{ruleRender}, []string{"RENDER001 error defaults", "VALUES011 warning "}, findings.ExitErrors},
		{"disabled, a config renders", "RENDER011-fail", withFlavor, []string{ruleRender, ruleRequiredValues}, nil, findings.ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, opts := setupFixture(t, tc.fixture)
			opts.Config, opts.Disable = tc.config, append(tc.disable, ruleNoCRDs)
			res, err := ValidateChart(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := ruleSeverityConfigs(res.Findings); !slices.Equal(got, tc.want) {
				t.Errorf("findings %q, want %q:\n%s", got, tc.want, messages(res.Findings))
			}
			if code := Registry.ExitCode(res); code != tc.exit {
				t.Errorf("exit code %d, want %d", code, tc.exit)
			}
		})
	}

	// The placeholder rendering is checked by the rendering rules: a
	// fixed namespace shows up, said to be found with placeholders.
	dir, opts := setupFixture(t, "RENDER011-fail")
	editFile(t, filepath.Join(dir, "templates", "kubeadmcontrolplane.yaml"), "metadata:\n", "metadata:\n  namespace: kcm-system\n")
	res, err := ValidateChart(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Findings, func(f findings.Finding) bool {
		return f.Rule == ruleRenderNamespace && f.Config == placeholdersName
	}) {
		t.Errorf("want RENDER003 found with placeholders:\n%s", messages(res.Findings))
	}
}

// A CRD violation from a value the defaults leave empty is missing user
// input (SCHEMA004, info) with the defaults, and an error naming the value
// with a config or ci file that leaves it empty; a default map that
// renders an incomplete object is no missing input and stays SCHEMA002.
func TestSchemaInputs(t *testing.T) {
	cfgDir := t.TempDir()
	withEndpoint := writeFile(t, filepath.Join(cfgDir, "endpoint.yaml"), "controlPlane:\n  endpoint: cp.example.com:6443\n")
	withoutEndpoint := writeFile(t, filepath.Join(cfgDir, "workers.yaml"), "workersNumber: 2\n")
	const leaves = "set controlPlane.endpoint, which this config leaves empty"
	for _, tc := range []struct {
		name, config string
		ci           bool     // add a ci file that does not set the value
		want         []string // "RULE severity config"
		msg          string   // in the SCHEMA002 error
		exit         int
	}{
		{"defaults", "", false, []string{"SCHEMA004 info defaults"}, "", findings.ExitOK},
		{"config sets it", withEndpoint, false, []string{"SCHEMA004 info defaults"}, "", findings.ExitOK},
		{"config leaves it empty", withoutEndpoint, false, []string{"SCHEMA002 error " + withoutEndpoint, "SCHEMA004 info defaults"}, leaves, findings.ExitErrors},
		{"ci file leaves it empty", "", true, []string{"SCHEMA002 error ci/workers.yaml", "SCHEMA004 info defaults"}, "set controlPlane.endpoint, which this ci file leaves empty", findings.ExitErrors},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, opts := setupFixture(t, "SCHEMA004-fail")
			if tc.ci {
				writeFile(t, filepath.Join(dir, "ci", "workers.yaml"), "workersNumber: 2\n")
			}
			opts.Config = tc.config
			res, err := ValidateChart(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Findings {
				if f.Rule == ruleSchemaViolation && !strings.Contains(f.Message, tc.msg) {
					t.Errorf("SCHEMA002 message %q lacks %q", f.Message, tc.msg)
				}
			}
			if got := ruleSeverityConfigs(res.Findings); !slices.Equal(got, tc.want) {
				t.Errorf("findings %q, want %q:\n%s", got, tc.want, messages(res.Findings))
			}
			if code := Registry.ExitCode(res); code != tc.exit {
				t.Errorf("exit code %d, want %d", code, tc.exit)
			}
		})
	}

	// An empty map default rendered as a reference the CRD needs keys in:
	// the markers do not fill in the required keys, the default itself is
	// incomplete.
	t.Run("incomplete default object", func(t *testing.T) {
		dir, opts := setupFixture(t, "SCHEMA004-pass")
		editFile(t, filepath.Join(dir, "values.yaml"), "  endpoint: \"\"\n", "  endpoint: \"\"\n  machineRef: {}\n")
		editFile(t, filepath.Join(dir, "templates", "kubeadmcontrolplane.yaml"),
			"      infrastructureRef:\n        apiGroup: infrastructure.cluster.x-k8s.io\n        kind: DockerMachineTemplate\n        name: {{ include \"dockermachinetemplate.controlplane.name\" . }}\n",
			"      infrastructureRef: {{- toYaml .Values.controlPlane.machineRef | nindent 8 }}\n")
		res, err := ValidateChart(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		var schema []string
		for _, f := range res.Findings {
			if f.Rule == ruleSchemaViolation && f.Config == defaultsName {
				schema = append(schema, describe(f))
			}
			if f.Rule == ruleSchemaInputs {
				t.Errorf("want no SCHEMA004 for an incomplete default object: %s: %s", describe(f), f.Message)
			}
		}
		if len(schema) == 0 || !slices.ContainsFunc(schema, func(s string) bool {
			return strings.HasSuffix(s, "spec.machineTemplate.spec.infrastructureRef.name")
		}) {
			t.Errorf("want SCHEMA002 errors on the reference's required keys, got %q:\n%s", schema, messages(res.Findings))
		}
	})
}

// writeChart writes a chart of the given files into a temporary directory.
func writeChart(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "chart")
	for name, data := range files {
		writeFile(t, filepath.Join(dir, name), data)
	}
	return dir
}

// writeFile writes a file, and its directory, and returns its path.
func writeFile(t *testing.T, p, data string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ruleSeverityConfigs lists findings as "RULE severity config".
func ruleSeverityConfigs(fs []findings.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s", f.Rule, f.Severity, f.Config))
	}
	return out
}

// An adopted-cluster template (kcm's templates/cluster/adopted-cluster)
// declares only infrastructure-internal and renders a SveltosCluster.
func TestAdoptedCluster(t *testing.T) {
	const sveltos = `apiVersion: lib.projectsveltos.io/v1beta1
kind: SveltosCluster
metadata:
  name: {{ .Release.Name }}
spec:
  kubeconfigName: {{ .Values.clusterIdentity.name | quote }}
`
	const capi = `apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata:
  name: {{ .Release.Name }}
spec:
  infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: AWSCluster, name: {{ .Release.Name }}}
`
	const awsCluster = `apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSCluster
metadata:
  name: {{ .Release.Name }}
`
	chartYAML := func(providers string) string {
		return "apiVersion: v2\nname: adopted\nversion: 1.0.0\nannotations:\n  cluster.x-k8s.io/provider: " + providers + "\n"
	}
	for _, tc := range []struct {
		name      string
		providers string
		templates map[string]string
		want      []string
	}{
		{"adopted", "infrastructure-internal", map[string]string{"sveltoscluster.yaml": sveltos}, nil},
		{"adopted with a CAPI Cluster", "infrastructure-internal", map[string]string{"sveltoscluster.yaml": sveltos, "cluster.yaml": capi},
			[]string{"RENDER004 error templates/cluster.yaml:2", "RENDER005 error templates/cluster.yaml:6 spec.infrastructureRef", "RENDER004 error templates/sveltoscluster.yaml:2"}},
		{"internal without SveltosCluster", "infrastructure-internal", map[string]string{}, []string{"RENDER004 error templates/"}},
		{"SveltosCluster with a CAPI provider", "infrastructure-aws", map[string]string{"sveltoscluster.yaml": sveltos},
			[]string{"RENDER004 error templates/sveltoscluster.yaml:2"}},
		{"CAPI", "infrastructure-aws", map[string]string{"cluster.yaml": capi, "awscluster.yaml": awsCluster}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"Chart.yaml": chartYAML(tc.providers), "values.yaml": "clusterIdentity:\n  name: adopted-identity\n"}
			for n, d := range tc.templates {
				files["templates/"+n] = d
			}
			res, err := ValidateChart(writeChart(t, files), ChartOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Findings {
				// The contract and version annotations, and the schema,
				// are other rules' business here.
				if f.Severity != findings.Info && !slices.Contains([]string{ruleContractMissing, ruleK8sVersionMissing, ruleSchemaMissing}, f.Rule) {
					got = append(got, describe(f))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %q, want %q:\n%s", got, tc.want, messages(res.Findings))
			}
			if tc.name == "adopted" && len(res.Findings) != 2 {
				t.Errorf("an adopted-cluster template needs no contract or Kubernetes version annotation, got:\n%s", messages(res.Findings))
			}
		})
	}
}

func TestProviderChart(t *testing.T) {
	const chartYAML = "apiVersion: v2\nname: p\nversion: 1.0.0\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // a word of the reason, "" for a ClusterTemplate chart
	}{
		{"contract versions", map[string]string{"Chart.yaml": chartYAML + "annotations:\n  cluster.x-k8s.io/v1beta1: \"\"\n"}, "keyed by contract version"},
		{"both forms", map[string]string{"Chart.yaml": chartYAML + "annotations:\n  cluster.x-k8s.io/v1beta2: v1beta2\n  cluster.x-k8s.io/infrastructure-aws: v1beta2\n"}, ""},
		{"operator object", map[string]string{"Chart.yaml": chartYAML, "templates/p.yaml": "apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: IPAMProvider\n"}, "cluster-api-operator"},
		{"wrapper", map[string]string{"Chart.yaml": chartYAML + "dependencies:\n  - name: sveltos\n    version: 1.0.0\n"}, "no templates of its own"},
		{"wrapper of a template", map[string]string{"Chart.yaml": chartYAML + "annotations:\n  cluster.x-k8s.io/provider: infrastructure-aws\ndependencies:\n  - name: base\n    version: 1.0.0\n"}, ""},
		{"cluster template", map[string]string{"Chart.yaml": chartYAML, "templates/c.yaml": "apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, lf, err := loadChart(writeChart(t, tc.files))
			if err != nil || lf != nil {
				t.Fatal(err, lf)
			}
			got := providerChart(src)
			if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
				t.Errorf("providerChart = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestServesLabel(t *testing.T) {
	for _, tc := range []struct {
		declared, label string
		want            bool
	}{
		{"infrastructure-aws", "infrastructure-aws", true},                      // CAPA's EKS control plane CRDs
		{"control-plane-k0sproject-k0smotron", "k0sproject-k0smotron", true},    // k0smotron's release
		{"control-plane-k0sproject-k0smotron", "control-plane-k0smotron", true}, // k0smotron's CRD bases
		{"infrastructure-k0sproject-k0smotron", "control-plane-k0smotron", false},
		{"infrastructure-docker", "infrastructure-aws", false},
		{"ipam-in-cluster", "ipam-in-cluster", true},
		{"infrastructure-aws", "aws", true},
		{"infrastructure-awsx", "infrastructure-aws", false},
	} {
		if got := servesLabel(tc.declared, tc.label); got != tc.want {
			t.Errorf("servesLabel(%q, %q) = %v, want %v", tc.declared, tc.label, got, tc.want)
		}
	}
}

// editFile replaces the first old in a file with new; old must be there.
func editFile(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s has no %q", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}
