package target

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/plane"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/report"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// describedGroups are the API groups whose served versions a result
// records: k0rdent's and Cluster API's (and its providers').
var describedGroups = []string{k0rdent.Group, k0rdent.CAPIGroup}

// Describe implements runner.Describer: the Kubernetes server version, the
// k0rdent and Cluster API group/versions the cluster serves and, when it
// runs one, the k0rdent plane: release and controller versions. It
// reports nothing for a cluster that was not started.
func (t *Target) Describe(ctx context.Context, env *report.Environment) {
	if t.cluster == nil {
		return
	}
	cfg := cluster.FastConfig(t.cluster.RESTConfig())
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return
	}
	if v, err := dc.ServerVersion(); err == nil {
		env.Server = v.GitVersion
	}
	groups, err := dc.ServerGroups()
	if err != nil {
		return
	}
	servesK0rdent := false
	for _, g := range groups.Groups {
		if !described(g.Name) {
			continue
		}
		servesK0rdent = servesK0rdent || g.Name == k0rdent.Group
		for _, v := range g.Versions {
			env.APIs = append(env.APIs, v.GroupVersion)
		}
	}
	sort.Strings(env.APIs)
	env.K0rdent = planeK0rdent(cluster.PlaneOf(t.cluster))
	if servesK0rdent {
		env.K0rdent = managementK0rdent(ctx, cfg, env.K0rdent)
	}
}

// planeK0rdent describes the local plane kbook runs (nil: none): its
// release and, per running controller, the version of the module its
// binary was built from.
func planeK0rdent(p *plane.Plane) *report.K0rdent {
	if p == nil || p.Release() == nil {
		return nil
	}
	return releaseK0rdent(p.Release(), p.APIOnly(), p.Controllers())
}

// releaseK0rdent describes a release's local plane with the controllers
// that run.
func releaseK0rdent(r *controllers.K0rdentRelease, apiOnly bool, running []string) *report.K0rdent {
	k := &report.K0rdent{Version: r.Version, Mode: "controllers (local)"}
	if apiOnly {
		k.Mode = "API only (local)"
		return k
	}
	for _, c := range r.Controllers {
		if slices.Contains(running, c.Name) {
			k.Components = append(k.Components, report.Component{Name: c.Name, Version: r.Module(c.Module).Version})
		}
	}
	return k
}

var (
	managementGVR = schema.GroupVersionResource{Group: k0rdent.Group, Version: k0rdent.Version, Resource: "managements"}
	releaseGVR    = schema.GroupVersionResource{Group: k0rdent.Group, Version: k0rdent.Version, Resource: "releases"}
)

// managementK0rdent adds what kcm's Management says (the Release it runs
// and, for a cluster kbook did not start, the components and their
// templates) to k; without a Management, k is returned as it is.
func managementK0rdent(ctx context.Context, cfg *rest.Config, k *report.K0rdent) *report.K0rdent {
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return k
	}
	m, err := dc.Resource(managementGVR).Get(ctx, k0rdent.ManagementName, metav1.GetOptions{})
	if err != nil {
		return k
	}
	rel, _, _ := unstructured.NestedString(m.Object, "status", "release")
	if rel == "" {
		rel, _, _ = unstructured.NestedString(m.Object, "spec", "release")
	}
	if rel == "" {
		return k
	}
	if k == nil {
		k = &report.K0rdent{}
	}
	k.Release = rel
	if k.Version == "" {
		if r, err := dc.Resource(releaseGVR).Get(ctx, rel, metav1.GetOptions{}); err == nil {
			if v, _, _ := unstructured.NestedString(r.Object, "spec", "version"); v != "" {
				k.Version = "v" + strings.TrimPrefix(v, "v")
			}
		}
	}
	if len(k.Components) == 0 {
		comps, _, _ := unstructured.NestedMap(m.Object, "status", "components")
		for _, name := range sortedKeys(comps) {
			c, _ := comps[name].(map[string]any)
			tmpl, _ := c["template"].(string)
			if ok, _ := c["success"].(bool); ok && tmpl != "" {
				k.Components = append(k.Components, report.Component{Name: name, Version: tmpl})
			}
		}
	}
	return k
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func described(group string) bool {
	for _, d := range describedGroups {
		if group == d || strings.HasSuffix(group, "."+d) {
			return true
		}
	}
	return false
}
