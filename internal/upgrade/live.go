package upgrade

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/status"
)

// Target names the upgrade of a live ClusterDeployment.
type Target struct {
	Namespace, Name string
	// To is the ClusterTemplate to move to.
	To string
	// Charts finds the charts of both templates.
	Charts *ChartFinder
	// AllowK8sChange lets a pinned deployment change Kubernetes version.
	AllowK8sChange bool
}

// Live is what was read from the management cluster.
type Live struct {
	Deployment *unstructured.Unstructured
	// NamespaceAnnotations are the annotations of the deployment's
	// namespace (a maintenance window may be set there).
	NamespaceAnnotations map[string]string
	From                 string
}

// ErrBadTarget marks an upgrade that cannot be checked: the deployment or
// the target template does not exist (exit code 2).
var ErrBadTarget = errors.New("bad target")

// LiveInput reads the deployment, both templates and their charts, the
// ServiceTemplates it uses and what its Management (or Region) exposes.
func LiveInput(ctx context.Context, c *status.Client, t Target) (Input, *Live, error) {
	cd, err := c.Get(ctx, k0rdent.Group, k0rdent.KindClusterDeployment, t.Namespace, t.Name)
	if err != nil {
		return Input{}, nil, fmt.Errorf("ClusterDeployment %s/%s: %w", t.Namespace, t.Name, err)
	}
	if cd == nil {
		return Input{}, nil, fmt.Errorf("%w: ClusterDeployment %s not found in namespace %s", ErrBadTarget, t.Name, t.Namespace)
	}
	live := &Live{Deployment: cd}
	from, _, _ := unstructured.NestedString(cd.Object, "spec", "template")
	live.From = from
	if from == t.To {
		return Input{}, nil, fmt.Errorf("%w: ClusterDeployment %s/%s already uses %s", ErrBadTarget, t.Namespace, t.Name, t.To)
	}
	if ns, err := c.Get(ctx, "", "Namespace", "", t.Namespace); err == nil && ns != nil {
		live.NamespaceAnnotations = ns.GetAnnotations()
	}
	in := Input{AllowK8sChange: t.AllowK8sChange}
	d := &in.Deployment
	d.Name, d.Namespace, d.Annotations, d.Live = t.Name, t.Namespace, cd.GetAnnotations(), true
	d.ConfigSource = fmt.Sprintf("ClusterDeployment %s/%s", t.Namespace, t.Name)
	if cfg, ok, _ := unstructured.NestedMap(cd.Object, "spec", "config"); ok {
		d.Config = cfg
	}
	d.AvailableUpgrades, _, _ = unstructured.NestedStringSlice(cd.Object, "status", "availableUpgrades")
	services, _, _ := unstructured.NestedSlice(cd.Object, "spec", "serviceSpec", "services")
	for _, s := range services {
		m, _ := s.(map[string]any)
		name, _ := m["template"].(string)
		if disabled, _ := m["disable"].(bool); disabled || name == "" {
			continue
		}
		d.Services = append(d.Services, name)
		st, err := c.Get(ctx, k0rdent.Group, k0rdent.KindServiceTemplate, t.Namespace, name)
		if err != nil || st == nil {
			continue
		}
		constraint, _, _ := unstructured.NestedString(st.Object, "status", "k8sConstraint")
		if constraint == "" {
			constraint, _, _ = unstructured.NestedString(st.Object, "spec", "k8sConstraint")
		}
		in.Services = append(in.Services, ServiceTemplate{Name: name, Namespace: t.Namespace, Constraint: constraint, Source: "ServiceTemplate " + t.Namespace + "/" + name})
	}
	for _, side := range []struct {
		name string
		s    *Side
	}{{from, &in.From}, {t.To, &in.To}} {
		if err := liveSide(ctx, c, t, side.name, side.s); err != nil {
			return Input{}, nil, err
		}
	}
	in.Exposure, in.ExposureError = exposureOf(ctx, c, cd)
	return in, live, nil
}

func liveSide(ctx context.Context, c *status.Client, t Target, name string, s *Side) error {
	tpl, err := c.Get(ctx, k0rdent.Group, k0rdent.KindClusterTemplate, t.Namespace, name)
	if err != nil {
		return fmt.Errorf("ClusterTemplate %s/%s: %w", t.Namespace, name, err)
	}
	if tpl == nil {
		return fmt.Errorf("%w: ClusterTemplate %s not found in namespace %s (kcm would answer: the ClusterDeployment is invalid: %s %q not found)", ErrBadTarget, name, t.Namespace, k0rdent.Resource("clustertemplates"), name)
	}
	s.Template = name
	s.K8sVersion, _, _ = unstructured.NestedString(tpl.Object, "spec", "k8sVersion")
	st := &TemplateStatus{}
	st.Valid, _, _ = unstructured.NestedBool(tpl.Object, "status", "valid")
	st.ValidationError, _, _ = unstructured.NestedString(tpl.Object, "status", "validationError")
	st.Providers, _, _ = unstructured.NestedStringSlice(tpl.Object, "status", "providers")
	st.Contracts, _, _ = unstructured.NestedStringMap(tpl.Object, "status", "providerContracts")
	st.K8sVersion, _, _ = unstructured.NestedString(tpl.Object, "status", "k8sVersion")
	st.ChartName, _, _ = unstructured.NestedString(tpl.Object, "status", "chartRef", "name")
	if _, has, _ := unstructured.NestedFieldNoCopy(tpl.Object, "status"); has {
		s.Status = st
	}
	chart, version, repo, err := chartOf(ctx, c, tpl)
	if err != nil {
		return err
	}
	if s.Chart, err = t.Charts.Find(ctx, chart, version, repo); err != nil {
		return fmt.Errorf("%w: ClusterTemplate %s: %v", ErrBadTarget, name, err)
	}
	return nil
}

// chartOf is the chart name, version and repository of a template:
// spec.helm.chartSpec, or the HelmChart spec.helm.chartRef names.
func chartOf(ctx context.Context, c *status.Client, tpl *unstructured.Unstructured) (string, string, *Repository, error) {
	ns := tpl.GetNamespace()
	spec, ok, _ := unstructured.NestedMap(tpl.Object, "spec", "helm", "chartSpec")
	if !ok {
		ref, ok, _ := unstructured.NestedMap(tpl.Object, "spec", "helm", "chartRef")
		if !ok {
			return "", "", nil, fmt.Errorf("%w: ClusterTemplate %s/%s has neither spec.helm.chartSpec nor spec.helm.chartRef", ErrBadTarget, ns, tpl.GetName())
		}
		kind, _ := ref["kind"].(string)
		name, _ := ref["name"].(string)
		if rns, _ := ref["namespace"].(string); rns != "" {
			ns = rns
		}
		if kind != k0rdent.KindHelmChart {
			return "", "", nil, fmt.Errorf("%w: ClusterTemplate %s/%s takes its chart from a %s: kbook reads charts from HelmCharts and chartSpec only; give the chart with --charts", ErrBadTarget, tpl.GetNamespace(), tpl.GetName(), kind)
		}
		hc, err := c.Get(ctx, k0rdent.FluxSourceGroup, k0rdent.KindHelmChart, ns, name)
		if err != nil || hc == nil {
			return "", "", nil, fmt.Errorf("%w: ClusterTemplate %s/%s: HelmChart %s/%s not found", ErrBadTarget, tpl.GetNamespace(), tpl.GetName(), ns, name)
		}
		spec, _, _ = unstructured.NestedMap(hc.Object, "spec")
	}
	chart, _ := spec["chart"].(string)
	version, _ := spec["version"].(string)
	if version == "" {
		version, _, _ = unstructured.NestedString(tpl.Object, "status", "chartVersion")
	}
	var repo *Repository
	if src, ok := spec["sourceRef"].(map[string]any); ok {
		if kind, _ := src["kind"].(string); kind == k0rdent.KindHelmRepository {
			name, _ := src["name"].(string)
			if hr, err := c.Get(ctx, k0rdent.FluxSourceGroup, k0rdent.KindHelmRepository, ns, name); err == nil && hr != nil {
				u, _, _ := unstructured.NestedString(hr.Object, "spec", "url")
				repo = &Repository{URL: u, Name: ns + "/" + name}
			}
		}
	}
	return chart, version, repo, nil
}

// exposureOf reads what the deployment's Credential's Region, else the
// Management, exposes (validation.getParent); the error is kcm's words
// when it cannot tell.
func exposureOf(ctx context.Context, c *status.Client, cd *unstructured.Unstructured) (*Exposure, string) {
	credName, _, _ := unstructured.NestedString(cd.Object, "spec", "credential")
	cred, err := c.Get(ctx, k0rdent.Group, k0rdent.KindCredential, cd.GetNamespace(), credName)
	if err != nil || cred == nil {
		return nil, fmt.Sprintf("failed to validate required providers: failed to get %s/%s Credential: %s %q not found", cd.GetNamespace(), credName, k0rdent.Resource("credentials"), credName)
	}
	kind, name := k0rdent.KindManagement, k0rdent.ManagementName
	if region, _, _ := unstructured.NestedString(cred.Object, "spec", "region"); region != "" {
		kind, name = k0rdent.KindRegion, region
	}
	parent, err := c.Get(ctx, k0rdent.Group, kind, "", name)
	if err != nil || parent == nil {
		what := k0rdent.KindManagement
		if kind == k0rdent.KindRegion {
			what = name + " Region"
		}
		return nil, fmt.Sprintf("failed to validate required providers: failed to get parent object for %s/%s ClusterDeployment: failed to get %s: %s %q not found", cd.GetNamespace(), cd.GetName(), what, map[string]string{k0rdent.KindManagement: k0rdent.Resource("managements"), k0rdent.KindRegion: k0rdent.Resource("regions")}[kind], name)
	}
	ex := &Exposure{Parent: kind + " " + name}
	ex.Providers, _, _ = unstructured.NestedStringSlice(parent.Object, "status", "availableProviders")
	contracts, _, _ := unstructured.NestedMap(parent.Object, "status", "capiContracts")
	ex.Contracts = map[string]map[string]string{}
	for p, v := range contracts {
		m, _ := v.(map[string]any)
		ex.Contracts[p] = map[string]string{}
		for k, val := range m {
			ex.Contracts[p][k], _ = val.(string)
		}
	}
	slices.Sort(ex.Providers)
	return ex, ""
}
