package chain

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// wantRules reads the "# want: RULE..." header of a fixture.
func wantRules(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	rest, ok := strings.CutPrefix(first, "# want:")
	if !ok {
		t.Fatalf("%s: first line is not # want: RULES", file)
	}
	return strings.Fields(rest)
}

// TestFixtures validates each chain fixture with the chart folders as the
// templates and expects exactly the rules its header names.
func TestFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/chains/*.yaml")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	covered := map[string]bool{}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := Load(f, "testdata/charts")
			if err != nil {
				t.Fatal(err)
			}
			res := Validate(in, Options{})
			var got []string
			for _, fd := range res.Findings {
				if !slices.Contains(got, fd.Rule) {
					got = append(got, fd.Rule)
				}
				if fd.File != filepath.ToSlash(f) || fd.Line == 0 {
					t.Errorf("finding without its place: %+v", fd)
				}
				covered[fd.Rule] = true
			}
			slices.Sort(got)
			want := wantRules(t, f)
			if !slices.Equal(got, want) {
				t.Errorf("rules %v, want %v\n%v", got, want, res.Findings)
			}
		})
	}
	for _, r := range Registry.Rules() {
		if !covered[r.ID] {
			t.Errorf("rule %s has no failing fixture", r.ID)
		}
	}
}

func TestKCMVerdict(t *testing.T) {
	for _, tc := range []struct {
		file     string
		accepted bool
		says     string
	}{
		{"good.yaml", true, "accepts the chain"},
		{"target-not-supported.yaml", false, "the webhook denies the chain: the template chain spec is invalid (warnings: template acme-aws-1-0-1 is allowed for upgrade but is not present in the list of '.spec.supportedTemplates')"},
		{"mixed-versions.yaml", false, "template acme-aws-1-0-0 has mixed version/no-version available upgrades: either all or none should have version set"},
		{"not-found.yaml", false, `ClusterTemplateChain.k0rdent.mirantis.com "acme-aws" is invalid: [spec.supportedTemplates[1].name: Not found: "acme-aws-1-0-2"]`},
		{"duplicate.yaml", false, `the API server rejects the chain: ClusterTemplateChain.k0rdent.mirantis.com "acme-aws" is invalid: spec.supportedTemplates[2]: Duplicate value`},
		// kcm accepts what only kbook finds wrong.
		{"cycle.yaml", true, "accepts"},
		{"minor-skip.yaml", true, "accepts"},
	} {
		in, err := Load("testdata/chains/"+tc.file, "testdata/charts")
		if err != nil {
			t.Fatal(err)
		}
		cr := Validate(in, Options{}).Chains[0]
		if cr.KCM.Accepted != tc.accepted || !strings.Contains(cr.KCM.Says, tc.says) {
			t.Errorf("%s: kcm accepted=%v says %q; want %v, %q", tc.file, cr.KCM.Accepted, cr.KCM.Says, tc.accepted, tc.says)
		}
	}
}

func TestOffers(t *testing.T) {
	in, err := Load("testdata/chains/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	offers := Validate(in, Options{}).Chains[0].KCM.Offers
	if got := strings.Join(offers["acme-aws-1-0-0"], ","); got != "acme-aws-1-0-1,acme-aws-1-1-0" {
		t.Errorf("offers from 1-0-0: %s", got)
	}
	if got := offers["acme-aws-1-1-0"]; got == nil || len(got) != 0 {
		t.Errorf("offers from 1-1-0: %v", got)
	}
}

// TestHopsFromNames: without templates, versions come from kcm's naming
// convention and Kubernetes versions are unknown.
func TestHopsFromNames(t *testing.T) {
	in, err := Load("testdata/chains/downgrade.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := Validate(in, Options{})
	h := res.Chains[0].Hops[0]
	if h.FromVersion != "1.1.0" || h.ToVersion != "1.0.1" || h.FromK8s != "" {
		t.Errorf("hop %+v", h)
	}
	if res.Errors() != 1 {
		t.Errorf("findings %v", res.Findings)
	}
	said := false
	for _, f := range res.Findings {
		said = said || f.Rule == ruleDowngrade && strings.Contains(f.Message, "(read from the template names; give the templates or charts to check their versions)")
	}
	if !said {
		t.Errorf("a downgrade read from the names does not say so: %v", res.Findings)
	}
	// With the charts, the versions are theirs and the message says no more.
	in, err = Load("testdata/chains/downgrade.yaml", "testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Validate(in, Options{}).Findings {
		if strings.Contains(f.Message, "read from the template names") {
			t.Errorf("with charts: %s", f.Message)
		}
	}
}

func TestHopsWithCharts(t *testing.T) {
	in, err := Load("testdata/chains/minor-skip.yaml", "testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	res := Validate(in, Options{})
	h := res.Chains[0].Hops[0]
	if h.FromK8s != "v1.32.2" || h.ToK8s != "v1.34.1" {
		t.Errorf("hop %+v", h)
	}
	if !strings.Contains(res.Findings[0].Message, "skips 1 minor version(s)") {
		t.Errorf("message %q", res.Findings[0].Message)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct{ name, data, err string }{
		{"bad.yaml", "kind: [", "bad.yaml:1: did not find expected node content"},
		{"nothing.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "nothing.yaml: no ClusterTemplateChain, ServiceTemplateChain, ClusterTemplate or ServiceTemplate"},
		{"noname.yaml", "apiVersion: k0rdent.mirantis.com/v1beta1\nkind: ClusterTemplateChain\nmetadata: {}\n", "noname.yaml:1: ClusterTemplateChain without metadata.name"},
		{"noupname.yaml", "apiVersion: k0rdent.mirantis.com/v1beta1\nkind: ClusterTemplateChain\nmetadata: {name: c}\nspec:\n  supportedTemplates:\n    - name: a\n      availableUpgrades:\n        - version: 1.0.0\n",
			"noupname.yaml:8: spec.supportedTemplates[0].availableUpgrades[0].name: Required value"},
		{"badk8s.yaml", "apiVersion: k0rdent.mirantis.com/v1beta1\nkind: ClusterTemplate\nmetadata: {name: t}\nspec:\n  k8sVersion: one\n", `badk8s.yaml:1: ClusterTemplate t: spec.k8sVersion: "one" is not a version`},
	} {
		_, err := Load(write(tc.name, tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("missing file: no error")
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	if _, err := Load(empty); err == nil || !strings.Contains(err.Error(), "no chain, template or chart in this folder") {
		t.Errorf("empty folder: %v", err)
	}
}

// TestRealTemplates: kcm's own chart folders load as the templates kcm
// names after them, with the Kubernetes version of their defaults.
func TestRealTemplates(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "kcm", "v1.11.4", "templates", "cluster")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/kcm/v1.11.4 is not beside the repository: skipping the test on kcm's real templates")
	}
	in, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Template{}
	for _, tpl := range in.Templates {
		byName[tpl.Name] = tpl
	}
	for name, want := range map[string]string{
		"aws-standalone-cp-1-0-43": "v1.36.3 (chart default k0s.version)",
		"aws-eks-1-0-13":           "v1.36.1 (chart default kubernetes.version)",
		"azure-aks-1-0-10":         "v1.36.0 (chart default kubernetes.version)",
		"gcp-gke-1-0-15":           "unknown",
		"adopted-cluster-1-0-2":    "unknown",
	} {
		tpl := byName[name]
		if tpl == nil {
			t.Errorf("%s not loaded", name)
			continue
		}
		if got := tpl.K8s.String(); got != want {
			t.Errorf("%s: Kubernetes %s, want %s", name, got, want)
		}
	}
	if len(in.Templates) != 18 {
		t.Errorf("%d templates, want 18", len(in.Templates))
	}
}
