package plane

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
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

var (
	releaseGVR    = k0rdent.GVR("releases")
	ptGVR         = k0rdent.GVR("providertemplates")
	managementGVR = k0rdent.GVR("managements")
)

// bootstrap creates the Release and its ProviderTemplates, waits until
// kcm has validated them, then creates the Management and waits until it
// is ready: its components installed by helm-controller.
func (p *Plane) bootstrap(ctx context.Context, b *Bootstrap) error {
	dc, err := dynamic.NewForConfig(p.opts.RESTConfig)
	if err != nil {
		return err
	}
	// The objects carry what kcm would add first thing (its component
	// label, the templates' owner), each of which would otherwise cost a
	// requeue: kcm's rate limiter waits 5 s before every retry.
	// A restored plane has them all already: nothing is created, kcm has
	// only to find them valid and ready again (rewire cleared their status).
	restored := p.opts.Restored
	release := b.Release.DeepCopy()
	release.SetLabels(merge(release.GetLabels(), map[string]string{k0rdent.ComponentLabel: "kcm"}))
	var rel *unstructured.Unstructured
	if restored {
		rel, err = dc.Resource(releaseGVR).Get(ctx, release.GetName(), metav1.GetOptions{})
	} else {
		rel, err = createOrGet(ctx, dc.Resource(releaseGVR), release)
	}
	if err != nil {
		return fmt.Errorf("Release %s: %w", b.Release.GetName(), err)
	}
	for _, t := range b.ProviderTemplates {
		if restored {
			break
		}
		t = t.DeepCopy()
		t.SetLabels(merge(t.GetLabels(), map[string]string{k0rdent.ComponentLabel: "kcm"}))
		t.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: k0rdent.APIVersion, Kind: k0rdent.KindRelease, Name: rel.GetName(), UID: rel.GetUID()}})
		if _, err := createOrGet(ctx, dc.Resource(ptGVR), t); err != nil {
			return fmt.Errorf("ProviderTemplate %s: %w", t.GetName(), err)
		}
	}
	for _, t := range b.ProviderTemplates {
		if err := waitFor(ctx, dc.Resource(ptGVR), t.GetName(), func(o *unstructured.Unstructured) (bool, string) {
			v, _, _ := unstructured.NestedBool(o.Object, "status", "valid")
			msg, _, _ := unstructured.NestedString(o.Object, "status", "validationError")
			return v, msg
		}); err != nil {
			return fmt.Errorf("ProviderTemplate %s: %w", t.GetName(), err)
		}
	}
	// kcm validated the templates; the Release learns on its next retry
	// unless asked now.
	if err := nudge(ctx, dc.Resource(releaseGVR), rel.GetName()); err != nil {
		return err
	}
	if err := waitFor(ctx, dc.Resource(releaseGVR), rel.GetName(), func(o *unstructured.Unstructured) (bool, string) {
		ready, _, _ := unstructured.NestedBool(o.Object, "status", "ready")
		return ready, conditionMessages(o)
	}); err != nil {
		return fmt.Errorf("Release %s: %w", rel.GetName(), err)
	}
	if !restored {
		if err := createManagement(ctx, dc.Resource(managementGVR), b.Management); err != nil {
			return fmt.Errorf("Management: %w", err)
		}
	}
	// kcm re-reads the components' HelmReleases every 10 s; each one that
	// becomes ready lets the next start. Once helm-controller has
	// installed the first, ask for a reconcile every second instead.
	hr := dc.Resource(k0rdent.HelmReleaseGVR).Namespace(k0rdent.SystemNamespace)
	var lastNudge time.Time
	nudgeOnReady := func() {
		if time.Since(lastNudge) < time.Second {
			return
		}
		list, err := hr.List(ctx, metav1.ListOptions{})
		if err != nil {
			return
		}
		for _, o := range list.Items {
			if conditionTrue(&o, "Ready") {
				lastNudge = time.Now()
				_ = nudge(ctx, dc.Resource(managementGVR), k0rdent.ManagementName)
				return
			}
		}
	}
	if err := waitFor(ctx, dc.Resource(managementGVR), k0rdent.ManagementName, func(o *unstructured.Unstructured) (bool, string) {
		nudgeOnReady()
		comps, _, _ := unstructured.NestedMap(o.Object, "status", "components")
		var pending []string
		for name, c := range comps {
			m, _ := c.(map[string]any)
			if ok, _ := m["success"].(bool); !ok {
				msg, _ := m["error"].(string)
				pending = append(pending, name+": "+msg)
			}
		}
		return conditionTrue(o, "Ready") && len(comps) > 0 && len(pending) == 0, strings.Join(pending, "; ") + " " + conditionMessages(o)
	}); err != nil {
		return fmt.Errorf("Management %s: %w", k0rdent.ManagementName, err)
	}
	return nil
}

// prefetch creates the HelmRepository and HelmCharts kcm creates for the
// ProviderTemplates, with the specs kcm gives them (template_controller.go
// reconcileHelmChart, helm.DefaultRegistryConfig), so source-controller
// has the charts when kcm first looks instead of kcm retrying 5 s later.
// kcm then adopts them: it only adds its owner references.
func (p *Plane) prefetch(ctx context.Context, b *Bootstrap) error {
	dc, err := dynamic.NewForConfig(p.opts.RESTConfig)
	if err != nil {
		return err
	}
	managed := map[string]any{k0rdent.ManagedLabel: "true"}
	repo := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": k0rdent.FluxSourceAPIVersion, "kind": k0rdent.KindHelmRepository,
		"metadata": map[string]any{"name": k0rdent.TemplatesRepoName, "namespace": k0rdent.SystemNamespace, "labels": managed},
		"spec":     map[string]any{"type": "default", "url": p.repo.URL(), "interval": "10m0s"},
	}}
	if _, err := createOrGet(ctx, dc.Resource(k0rdent.HelmRepositoryGVR).Namespace(k0rdent.SystemNamespace), repo); err != nil {
		return fmt.Errorf("HelmRepository %s: %w", k0rdent.TemplatesRepoName, err)
	}
	for _, t := range b.ProviderTemplates {
		spec, _, _ := unstructured.NestedMap(t.Object, "spec", "helm", "chartSpec")
		hc := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": k0rdent.FluxSourceAPIVersion, "kind": k0rdent.KindHelmChart,
			"metadata": map[string]any{"name": t.GetName(), "namespace": k0rdent.SystemNamespace, "labels": managed},
			"spec":     spec,
		}}
		if _, err := createOrGet(ctx, dc.Resource(k0rdent.HelmChartGVR).Namespace(k0rdent.SystemNamespace), hc); err != nil {
			return fmt.Errorf("HelmChart %s: %w", t.GetName(), err)
		}
	}
	return nil
}

func nudge(ctx context.Context, r dynamic.NamespaceableResourceInterface, name string) error {
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, k0rdent.NudgeAnnotation, time.Now().UTC().Format(time.RFC3339Nano))
	if _, err := r.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("annotate %s: %w", name, err)
	}
	return nil
}

// merge returns a new map of a's entries, then b's.
func merge(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}

func createOrGet(ctx context.Context, r dynamic.ResourceInterface, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	got, err := r.Create(ctx, o, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return r.Get(ctx, o.GetName(), metav1.GetOptions{})
	}
	return got, err
}

// createManagement creates the Management once kcm's webhook admits it.
// The webhook reads the Release through kcm's informer cache
// (internal/webhook/management_webhook.go, validateRelease), which can
// still hold the Release from before it became Ready when the API server
// already says Ready: under load that lag refused the Management with
// "release ... status is not ready". That refusal is retried until the
// cache catches up or ctx ends; any other error returns at once.
func createManagement(ctx context.Context, r dynamic.ResourceInterface, m *unstructured.Unstructured) error {
	return poll(ctx, func() (bool, string, error) {
		_, err := createOrGet(ctx, r, m)
		switch {
		case err == nil:
			return true, "", nil
		case releaseNotReadyYet(err):
			return false, "kcm's webhook still saw the Release not ready: " + err.Error(), nil
		}
		return false, "", err
	})
}

// releaseNotReadyYet reports whether err is kcm's webhook refusing a
// Management because the Release it names is not ready (in its cache).
func releaseNotReadyYet(err error) bool {
	return strings.Contains(err.Error(), "admission webhook") && strings.Contains(err.Error(), "status is not ready")
}
