package plane

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
)

// release returns the default release's paths, skipping when its module
// trees are not in the cache (kbook cluster assets --k0rdent --api-only
// fetches them in seconds; make test does).
func release(t *testing.T, binaries bool) (*controllers.K0rdentRelease, controllers.K0rdentPaths) {
	t.Helper()
	r, err := controllers.K0rdent("")
	if err != nil {
		t.Fatal(err)
	}
	p, why := controllers.K0rdentAwait(context.Background(), r, !binaries, controllers.K0rdentLogger(apitest.Logger(t)))
	if why != "" {
		t.Skip(why)
	}
	return r, p
}

// TestLoadCRDs reads the real module trees: every CRD kcm watches is
// there, the Cluster API provider CRDs carry their contract labels and
// conversion goes to the controller of their group.
func TestLoadCRDs(t *testing.T) {
	_, p := release(t, false)
	crds, err := LoadCRDs(p)
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

func TestLoadWebhooks(t *testing.T) {
	r, p := release(t, false)
	ports := map[string]int{}
	for i, c := range r.Controllers {
		ports[c.Name] = 10000 + i
	}
	w, err := LoadWebhooks(p, ports, []byte("CA"))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, c := range w.Validating {
		for _, h := range c.Webhooks {
			found[h.Name] = *h.ClientConfig.URL
			if h.ClientConfig.Service != nil || string(h.ClientConfig.CABundle) != "CA" {
				t.Errorf("%s: not wired locally: %+v", h.Name, h.ClientConfig)
			}
		}
	}
	for _, c := range w.Mutating {
		for _, h := range c.Webhooks {
			found[h.Name] = *h.ClientConfig.URL
		}
	}
	kcmPort := ports[controllers.KCM]
	for name, url := range map[string]string{
		"validation.clusterdeployment.k0rdent.mirantis.com": "/validate-k0rdent-mirantis-com-v1beta1-clusterdeployment",
		"validation.clustertemplate.k0rdent.mirantis.com":   "/validate-k0rdent-mirantis-com-v1beta1-clustertemplate",
	} {
		if !strings.HasSuffix(found[name], url) || !strings.Contains(found[name], ":"+itoa(kcmPort)+"/") {
			t.Errorf("kcm webhook %s = %q", name, found[name])
		}
	}
	var capi bool
	for name, url := range found {
		if strings.Contains(name, "machinedeployment.cluster.x-k8s.io") && strings.Contains(url, ":"+itoa(ports[controllers.CAPICore])+"/") {
			capi = true
		}
	}
	if !capi {
		t.Errorf("no MachineDeployment webhook of CAPI core among %d", len(found))
	}
}

func TestLoadBootstrap(t *testing.T) {
	r, p := release(t, false)
	b, err := LoadBootstrap(p, r)
	if err != nil {
		t.Fatal(err)
	}
	if b.Release.GetName() != "kcm-1-11-0" {
		t.Errorf("release %s", b.Release.GetName())
	}
	if len(b.ProviderTemplates) != len(b.Charts) || len(b.Charts) < 10 {
		t.Errorf("%d templates, %d charts", len(b.ProviderTemplates), len(b.Charts))
	}
	for _, ch := range b.Charts {
		if len(ch.Metadata.Dependencies) > 0 {
			t.Errorf("stub %s keeps dependencies", ch.Name())
		}
		if ch.Name() == "cluster-api-provider-docker" {
			if ch.Metadata.Annotations["cluster.x-k8s.io/provider"] != "infrastructure-docker" {
				t.Errorf("docker stub lost its annotations: %v", ch.Metadata.Annotations)
			}
			var iface bool
			for _, f := range ch.Templates {
				iface = iface || f.Name == "templates/interface.yaml"
			}
			if !iface {
				t.Error("docker stub lacks its ProviderInterface")
			}
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
