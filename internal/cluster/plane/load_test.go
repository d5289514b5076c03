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
