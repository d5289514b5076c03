package plane

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// KubeadmProvider is kbook's stand-in component for the kubeadm bootstrap
// and control-plane providers, which k0rdent does not ship but the local
// plane runs (CAPD's in-memory machines are bootstrapped by kubeadm
// objects): its ProviderTemplate exposes them to kcm.
const KubeadmProvider = "cluster-api-provider-kubeadm"

// Bootstrap is what kbook creates so that kcm reconciles a Management
// as after a real install.
type Bootstrap struct {
	// Charts are the stub charts to serve from the templates repository.
	Charts []*chart.Chart
	// Release is kcm's Release, as the kcm-templates chart ships it.
	Release *unstructured.Unstructured
	// ProviderTemplates are the Release's templates (plus the kubeadm
	// stand-in), without owner references yet.
	ProviderTemplates []*unstructured.Unstructured
	// Management enables the components the local plane runs.
	Management *unstructured.Unstructured
}

// Providers the Management enables: the ones whose controllers run here.
var managedProviders = []string{k0rdent.DockerProvider, KubeadmProvider, k0rdent.SveltosProvider}

// LoadBootstrap builds the bootstrap of a release from its kcm module:
// files/release.yaml and files/templates/*.yaml of the kcm-templates chart
// and each template's chart under templates/provider.
func LoadBootstrap(p controllers.K0rdentPaths, r *controllers.K0rdentRelease) (*Bootstrap, error) {
	base := filepath.Join(p.ModuleDir("kcm"), "templates", "provider")
	files := filepath.Join(base, "kcm-templates", "files")
	b := &Bootstrap{}
	rel, err := readObject(filepath.Join(files, "release.yaml"))
	if err != nil {
		return nil, err
	}
	b.Release = rel
	wanted := map[string]bool{}
	for _, path := range [][]string{{"spec", "kcm", "template"}, {"spec", "regional", "template"}, {"spec", "capi", "template"}} {
		if v, _, _ := unstructured.NestedString(rel.Object, path...); v != "" {
			wanted[v] = true
		}
	}
	provs, _, _ := unstructured.NestedSlice(rel.Object, "spec", "providers")
	for _, pr := range provs {
		if m, ok := pr.(map[string]any); ok {
			if t, ok := m["template"].(string); ok {
				wanted[t] = true
			}
		}
	}
	tfiles, err := filepath.Glob(filepath.Join(files, "templates", "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(tfiles)
	for _, f := range tfiles {
		o, err := readObject(f)
		if err != nil {
			return nil, err
		}
		if o.GetKind() != k0rdent.KindProviderTemplate || !wanted[o.GetName()] {
			continue
		}
		chartName, _, _ := unstructured.NestedString(o.Object, "spec", "helm", "chartSpec", "chart")
		version, _, _ := unstructured.NestedString(o.Object, "spec", "helm", "chartSpec", "version")
		ch, err := stubChart(filepath.Join(base, chartName), version)
		if err != nil {
			return nil, fmt.Errorf("ProviderTemplate %s: %w", o.GetName(), err)
		}
		b.Charts = append(b.Charts, ch)
		b.ProviderTemplates = append(b.ProviderTemplates, o)
		delete(wanted, o.GetName())
	}
	if len(wanted) > 0 {
		var missing []string
		for k := range wanted {
			missing = append(missing, k)
		}
		sort.Strings(missing)
		return nil, fmt.Errorf("the Release of kcm %s names templates the kcm-templates chart lacks: %s", r.Version, strings.Join(missing, ", "))
	}

	// The kubeadm stand-in, at the Cluster API version of the release.
	capi := strings.TrimPrefix(r.Module("capi").Version, "v")
	kname := KubeadmProvider + "-" + strings.ReplaceAll(capi, ".", "-")
	b.Charts = append(b.Charts, &chart.Chart{
		Metadata: &chart.Metadata{
			APIVersion: "v2", Name: KubeadmProvider, Version: capi, AppVersion: "v" + capi, Type: "application",
			Description: "kbook stand-in: exposes the Cluster API kubeadm bootstrap and control-plane providers, whose controllers the local plane runs",
			Annotations: map[string]string{
				k0rdent.ProviderLabel:            k0rdent.BootstrapProviderPrefix + "kubeadm, " + k0rdent.ControlPlaneProviderPrefix + "kubeadm",
				k0rdent.ContractLabel("v1beta1"): "v1beta1",
				k0rdent.ContractLabel("v1beta2"): "v1beta2",
			},
		},
		Templates: []*chart.File{stubTemplate(KubeadmProvider)},
	})
	b.ProviderTemplates = append(b.ProviderTemplates, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": k0rdent.APIVersion, "kind": k0rdent.KindProviderTemplate,
		"metadata": map[string]any{"name": kname},
		"spec": map[string]any{"helm": map[string]any{"chartSpec": map[string]any{
			"chart": KubeadmProvider, "version": capi, "interval": "10m0s",
			"sourceRef": map[string]any{"kind": k0rdent.KindHelmRepository, "name": k0rdent.TemplatesRepoName},
		}}},
	}})

	var providers []any
	for _, name := range managedProviders {
		pr := map[string]any{"name": name}
		if name == KubeadmProvider {
			pr["template"] = kname
		}
		providers = append(providers, pr)
	}
	b.Management = &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": k0rdent.APIVersion, "kind": k0rdent.KindManagement,
		"metadata": map[string]any{"name": k0rdent.ManagementName},
		"spec": map[string]any{
			"release":   rel.GetName(),
			"core":      map[string]any{"kcm": map[string]any{}, "capi": map[string]any{}},
			"providers": providers,
		},
	}}
	return b, nil
}

// stubChart is the chart in dir with its real metadata (name, version,
// annotations: what kcm reads) and, instead of its templates, a
// ConfigMap saying it stands in for it, plus its ProviderInterface where
// it ships a literal one. Dependencies are dropped: they would be
// downloaded from the internet.
func stubChart(dir, version string) (*chart.Chart, error) {
	full, err := loader.LoadDir(dir)
	if err != nil {
		return nil, err
	}
	md := *full.Metadata
	if version != "" && md.Version != version {
		return nil, fmt.Errorf("chart %s is version %s, the template wants %s", md.Name, md.Version, version)
	}
	md.Dependencies = nil
	md.Description = "kbook stand-in for " + md.Name + ": " + md.Description
	c := &chart.Chart{Metadata: &md, Templates: []*chart.File{stubTemplate(md.Name)}}
	for _, t := range full.Templates {
		if t.Name == "templates/interface.yaml" && !strings.Contains(string(t.Data), "{{") {
			c.Templates = append(c.Templates, t)
		}
	}
	return c, nil
}

func stubTemplate(name string) *chart.File {
	return &chart.File{Name: "templates/kbook-stand-in.yaml", Data: []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-kbook-stand-in
  labels:
    ` + k0rdent.StubLabel + `: "true"
data:
  chart: "{{ .Chart.Name }}-{{ .Chart.Version }}"
  note: "kbook's local k0rdent plane installs this instead of ` + name + `: its controllers run as local processes"
`)}
}

func readObject(path string) (*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}
