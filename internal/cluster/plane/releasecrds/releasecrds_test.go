package releasecrds

import (
	"context"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/log"
)

// release returns the default release's module trees, skipping when they
// are not in the cache (kbook cluster assets --k0rdent --api-only fetches
// them in seconds; make test does).
func release(t *testing.T) controllers.K0rdentPaths {
	t.Helper()
	r, err := controllers.K0rdent("")
	if err != nil {
		t.Fatal(err)
	}
	p, why := controllers.K0rdentAwait(context.Background(), r, true, controllers.K0rdentLogger(log.NoopLogger{}))
	if why != "" {
		t.Skip(why)
	}
	return p
}

// TestLoadCRDs reads the real module trees: every CRD kcm watches is
// there, the Cluster API provider CRDs carry their contract labels and
// conversion goes to the controller of their group.
func TestLoadCRDs(t *testing.T) {
	p := release(t)
	crds, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]CRD{}
	for _, c := range crds {
		if _, dup := byName[c.Object.Name]; dup {
			t.Errorf("CRD %s twice", c.Object.Name)
		}
		byName[c.Object.Name] = c
	}
	for _, name := range []string{
		"clustertemplates.k0rdent.mirantis.com", "servicesets.k0rdent.mirantis.com",
		"servicetemplatechains.k0rdent.mirantis.com", "statemanagementproviders.k0rdent.mirantis.com",
		"providerinterfaces.k0rdent.mirantis.com",
		"helmreleases.helm.toolkit.fluxcd.io", "helmcharts.source.toolkit.fluxcd.io", "helmrepositories.source.toolkit.fluxcd.io",
		"clusterprofiles.config.projectsveltos.io", "sveltosclusters.lib.projectsveltos.io",
		"clusters.cluster.x-k8s.io", "machinedeployments.cluster.x-k8s.io",
		"kubeadmconfigs.bootstrap.cluster.x-k8s.io", "kubeadmcontrolplanes.controlplane.cluster.x-k8s.io",
		"devclusters.infrastructure.cluster.x-k8s.io", "devmachines.infrastructure.cluster.x-k8s.io",
	} {
		if _, ok := byName[name]; !ok {
			t.Errorf("missing CRD %s", name)
		}
	}
	for name, want := range map[string]string{
		"kubeadmconfigs.bootstrap.cluster.x-k8s.io":          controllers.KubeadmBootstrap,
		"kubeadmcontrolplanes.controlplane.cluster.x-k8s.io": controllers.KubeadmControlPlane,
		"devmachines.infrastructure.cluster.x-k8s.io":        controllers.CAPD,
	} {
		c := byName[name]
		if c.Object == nil {
			continue
		}
		if got := c.Object.Labels["cluster.x-k8s.io/v1beta2"]; got != "v1beta2" {
			t.Errorf("%s: contract label cluster.x-k8s.io/v1beta2 = %q, want v1beta2 (from the kustomization)", name, got)
		}
		if c.ConversionBy != want {
			t.Errorf("%s: converted by %q, want %q", name, c.ConversionBy, want)
		}
	}
	if c := byName["clusters.cluster.x-k8s.io"]; c.ConversionBy != controllers.CAPICore {
		t.Errorf("clusters: converted by %q", c.ConversionBy)
	}
	if c := byName["clustertemplates.k0rdent.mirantis.com"]; c.ConversionBy != "" || !strings.HasPrefix(c.Source, "kcm/") {
		t.Errorf("clustertemplates: %+v", c)
	}
}
