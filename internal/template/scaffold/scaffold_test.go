package scaffold

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/apitest"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"
)

// render renders a chart as kcm would install it for a ClusterDeployment
// named release, with the values kcm injects.
func render(t *testing.T, dir, release, config string) []*unstructured.Unstructured {
	t.Helper()
	ch, err := loader.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]any{}
	if config != "" {
		data, err := os.ReadFile(filepath.Join(dir, config))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, &vals); err != nil {
			t.Fatal(err)
		}
	}
	vals["clusterIdentity"] = map[string]any{"name": "identity", "kind": "Secret", "namespace": "kcm-system"}
	vals["clusterLabels"] = map[string]any{"k0rdent.mirantis.com/component": "kcm"}
	// As helm install does: apply dependency aliases and conditions.
	if err := chartutil.ProcessDependenciesWithMerge(ch, vals); err != nil {
		t.Fatal(err)
	}
	top, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: release, Namespace: "kcm-system", IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	if err := chartutil.ValidateAgainstSchema(ch, top["Values"].(chartutil.Values)); err != nil {
		t.Fatalf("values do not match values.schema.json: %v", err)
	}
	out, err := engine.Render(ch, top)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range out {
		names = append(names, n)
	}
	sort.Strings(names)
	var objs []*unstructured.Unstructured
	for _, n := range names {
		if !strings.HasSuffix(n, ".yaml") {
			continue
		}
		for _, doc := range strings.Split(out[n], "\n---") {
			if strings.TrimSpace(doc) == "" || strings.TrimSpace(strings.Trim(doc, "-")) == "" {
				continue
			}
			o := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &o.Object); err != nil {
				t.Fatalf("%s: %v\n%s", n, err, doc)
			}
			if len(o.Object) > 0 {
				objs = append(objs, o)
			}
		}
	}
	return objs
}

func TestInit(t *testing.T) {
	// The k0smotron ha example has five machines: one PooledRemoteMachine each.
	tests := []struct {
		provider string
		kinds    string
	}{
		{"docker", "Cluster DockerCluster DockerMachineTemplate DockerMachineTemplate KubeadmConfigTemplate KubeadmControlPlane MachineDeployment"},
		{"k0smotron", "Cluster K0sControlPlane K0sWorkerConfigTemplate MachineDeployment PooledRemoteMachine PooledRemoteMachine RemoteCluster RemoteMachineTemplate RemoteMachineTemplate"},
		{"inmemory", "Cluster DevCluster DevMachineTemplate DevMachineTemplate KubeadmConfigTemplate KubeadmControlPlane MachineDeployment"},
	}
	for _, tc := range tests {
		t.Run(tc.provider, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "acme-"+tc.provider)
			got, files, err := Init(ChartOptions{Name: "acme-" + tc.provider, Dir: dir, Provider: tc.provider})
			if err != nil {
				t.Fatal(err)
			}
			if got != dir || !contains(files, "Chart.yaml") || !contains(files, "values.schema.json") || !contains(files, "ci/ha.yaml") || !contains(files, ".helmignore") {
				t.Fatalf("Init = %s %v", got, files)
			}
			chart, _ := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
			if !strings.Contains(string(chart), "name: \"acme-"+tc.provider+"\"") || strings.Contains(string(chart), "[[") {
				t.Errorf("Chart.yaml:\n%s", chart)
			}
			for _, config := range []string{"", "ci/default.yaml", "ci/ha.yaml"} {
				a := render(t, dir, "dev-1", config)
				var kinds []string
				for _, o := range a {
					kinds = append(kinds, o.GetKind())
					if !strings.HasPrefix(o.GetName(), "dev-1") {
						t.Errorf("%s %s: name not derived from the release name", o.GetKind(), o.GetName())
					}
				}
				sort.Strings(kinds)
				want := tc.kinds
				if tc.provider == "k0smotron" && config == "ci/ha.yaml" {
					want = strings.Replace(want, "PooledRemoteMachine PooledRemoteMachine", "PooledRemoteMachine PooledRemoteMachine PooledRemoteMachine PooledRemoteMachine PooledRemoteMachine", 1)
				}
				if strings.Join(kinds, " ") != want {
					t.Errorf("config %q renders %v, want %s", config, kinds, want)
				}
			}
		})
	}
}

// TestInMemoryDevClusterKept: helm-controller uninstalls every object of a
// deleted ClusterDeployment's release at once, and CAPD's in-memory backend
// drops its simulated cloud (VMs, nodes, the workload API server) as soon
// as the DevCluster is deleted, so the machines Cluster API deletes after
// it could never be deleted. The skeleton keeps the DevCluster out of the
// uninstall, for the Cluster controller to delete after the machines; it
// is the one object kept, so nothing else outlives the release.
func TestInMemoryDevClusterKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme-mem")
	if _, _, err := Init(ChartOptions{Name: "acme-mem", Dir: dir, Provider: "inmemory"}); err != nil {
		t.Fatal(err)
	}
	for _, config := range []string{"", "ci/ha.yaml"} {
		for _, o := range render(t, dir, "dev-1", config) {
			kept := o.GetAnnotations()["helm.sh/resource-policy"] == "keep"
			if want := o.GetKind() == "DevCluster"; kept != want {
				t.Errorf("config %q: %s %s kept by helm uninstall: %v, want %v", config, o.GetKind(), o.GetName(), kept, want)
			}
		}
	}
}

// renderErr renders a chart with values from a file in it, as kcm would,
// and returns Helm's error.
func renderErr(dir, release, config string) error {
	ch, err := loader.Load(dir)
	if err != nil {
		return err
	}
	vals := map[string]any{}
	data, err := os.ReadFile(filepath.Join(dir, config))
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(data, &vals); err != nil {
		return err
	}
	top, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: release, Namespace: "kcm-system", IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		return err
	}
	_, err = engine.Render(ch, top)
	return err
}

// writeConfig writes a values file into a chart and returns its name there.
func writeConfig(t *testing.T, dir, name, values string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(values), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// byKind returns the rendered objects of a kind.
func byKind(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// dockerImages is what a docker chart renders for its images: every
// DockerMachineTemplate's customImage, and the DockerCluster's
// loadBalancer (imageRepository and imageTag, "" when unset).
func dockerImages(t *testing.T, objs []*unstructured.Unstructured) (images []string, repo, tag string) {
	t.Helper()
	for _, o := range byKind(objs, "DockerMachineTemplate") {
		img, _, _ := unstructured.NestedString(o.Object, "spec", "template", "spec", "customImage")
		images = append(images, img)
	}
	dc := byKind(objs, "DockerCluster")
	if len(dc) != 1 {
		t.Fatalf("%d DockerClusters", len(dc))
	}
	if _, ok := dc[0].Object["spec"].(map[string]any); !ok {
		t.Errorf("DockerCluster spec %v: want an object", dc[0].Object["spec"])
	}
	repo, _, _ = unstructured.NestedString(dc[0].Object, "spec", "loadBalancer", "imageRepository")
	tag, _, _ = unstructured.NestedString(dc[0].Object, "spec", "loadBalancer", "imageTag")
	return images, repo, tag
}

// TestDockerImages: the node image and CAPD's load balancer image that
// kbook template init --kind-image build writes go where CAPD reads them
// (customImage; spec.loadBalancer), with the node image's Kubernetes
// version; global.registry moves every image under it; without them, the
// chart names kindest/node and leaves the load balancer to CAPD's default.
func TestDockerImages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme-local")
	_, _, err := Init(ChartOptions{Name: "acme-local", Dir: dir, Provider: "docker",
		MachineImage: "kbook.local/kind-node:v1.34.12-abc", ImageK8sVersion: "v1.34.12",
		LoadBalancerRepository: "kbook.local", LoadBalancerTag: "bookworm-123"})
	if err != nil {
		t.Fatal(err)
	}
	chart, _ := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if !strings.Contains(string(chart), "k0rdent.mirantis.com/k8s-version: v1.34.12\n") {
		t.Errorf("Chart.yaml does not run the image's Kubernetes:\n%s", chart)
	}
	plain := filepath.Join(t.TempDir(), "acme-plain")
	if _, _, err := Init(ChartOptions{Name: "acme-plain", Dir: plain, Provider: "docker"}); err != nil {
		t.Fatal(err)
	}
	hostless := writeConfig(t, dir, "hostless.yaml", "global:\n  registry: mirror.example.com/k8s\nmachineImage: nodes/kind:v1.34.12\nloadBalancer:\n  imageRepository: lbs\n")
	withPort := writeConfig(t, dir, "port.yaml", "global:\n  registry: r.example.com\nmachineImage: localhost:5000/kind-node:v1.34.12\n")
	for _, tc := range []struct {
		name, dir, config string
		image, repo, tag  string
	}{
		{"kbook's images", dir, "", "kbook.local/kind-node:v1.34.12-abc", "kbook.local", "bookworm-123"},
		{"kbook's images, global registry", dir, "ci/ha.yaml", "registry.example.com/kind-node:v1.34.12-abc", "registry.example.com", "bookworm-123"},
		{"no registry in the reference", dir, hostless, "mirror.example.com/k8s/nodes/kind:v1.34.12", "mirror.example.com/k8s/lbs", "bookworm-123"},
		{"a registry with a port", dir, withPort, "r.example.com/kind-node:v1.34.12", "r.example.com", "bookworm-123"},
		{"defaults", plain, "", "docker.io/kindest/node:v1.34.0", "", ""},
		{"defaults, global registry", plain, "ci/ha.yaml", "registry.example.com/kindest/node:v1.34.0", "registry.example.com/kindest", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			images, repo, tag := dockerImages(t, render(t, tc.dir, "dev-1", tc.config))
			if len(images) != 2 || images[0] != tc.image || images[1] != tc.image {
				t.Errorf("customImage %v, want %s twice", images, tc.image)
			}
			if repo != tc.repo || tag != tc.tag {
				t.Errorf("loadBalancer %q %q, want %q %q", repo, tag, tc.repo, tc.tag)
			}
		})
	}
}

// TestDockerCNI: the control plane applies the node image's pod network
// after kubeadm, with the cluster's pod subnets in place of kind's
// placeholder; cni.fromNodeImage false leaves it out; without a pod subnet
// the chart does not render.
func TestDockerCNI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme-cni")
	if _, _, err := Init(ChartOptions{Name: "acme-cni", Dir: dir, Provider: "docker"}); err != nil {
		t.Fatal(err)
	}
	post := func(config string) []string {
		kcp := byKind(render(t, dir, "dev-1", config), "KubeadmControlPlane")
		cmds, _, _ := unstructured.NestedStringSlice(kcp[0].Object, "spec", "kubeadmConfigSpec", "postKubeadmCommands")
		return cmds
	}
	apply := func(subnet string) string {
		return "sed 's#{{ .PodSubnet }}#" + subnet + "#' /kind/manifests/default-cni.yaml | kubectl --kubeconfig=/etc/kubernetes/admin.conf apply -f -"
	}
	if got := post(""); len(got) != 1 || got[0] != apply("10.244.0.0/16") {
		t.Errorf("postKubeadmCommands %q, want [%s]", got, apply("10.244.0.0/16"))
	}
	dual := writeConfig(t, dir, "dual.yaml", "clusterNetwork:\n  pods:\n    cidrBlocks: [10.244.0.0/16, fd00:10:244::/56]\n")
	if got := post(dual); len(got) != 1 || got[0] != apply("10.244.0.0/16,fd00:10:244::/56") {
		t.Errorf("dual stack: postKubeadmCommands %q", got)
	}
	off := writeConfig(t, dir, "off.yaml", "cni:\n  fromNodeImage: false\n")
	if got := post(off); len(got) != 0 {
		t.Errorf("cni.fromNodeImage false: postKubeadmCommands %q, want none", got)
	}
	none := writeConfig(t, dir, "none.yaml", "clusterNetwork:\n  pods: null\n")
	if err := renderErr(dir, "dev-1", none); err == nil || !strings.Contains(err.Error(), "cni.fromNodeImage needs clusterNetwork.pods.cidrBlocks") {
		t.Errorf("no pod subnet: %v, want the chart to refuse", err)
	}
}

// TestDockerClusterKept: CAPD does nothing for a DockerMachine whose
// DockerCluster is gone, so the DockerCluster must outlive helm uninstall
// (see TestInMemoryDevClusterKept); it is the one object kept.
func TestDockerClusterKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme-docker")
	if _, _, err := Init(ChartOptions{Name: "acme-docker", Dir: dir, Provider: "docker"}); err != nil {
		t.Fatal(err)
	}
	for _, config := range []string{"", "ci/ha.yaml"} {
		for _, o := range render(t, dir, "dev-1", config) {
			kept := o.GetAnnotations()["helm.sh/resource-policy"] == "keep"
			if want := o.GetKind() == "DockerCluster"; kept != want {
				t.Errorf("config %q: %s %s kept by helm uninstall: %v, want %v", config, o.GetKind(), o.GetName(), kept, want)
			}
		}
	}
}

func TestInitErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		o    ChartOptions
		want string
	}{
		{ChartOptions{Name: "Bad_Name", Provider: "docker"}, `chart name "Bad_Name": use lowercase`},
		{ChartOptions{Name: "ok", Provider: "aws"}, `provider "aws": want one of docker, k0smotron`},
		{ChartOptions{Name: "ok", Provider: "docker", K8sVersion: "1.34"}, `Kubernetes version "1.34": want vMAJOR.MINOR.PATCH`},
		{ChartOptions{Name: "ok", Provider: "docker", Dir: dir}, dir + " already exists"},
		{ChartOptions{Name: "ok", Provider: "inmemory", MachineImage: "kbook.local/kind-node:v1"}, "a machine or load balancer image goes with --provider docker"},
		{ChartOptions{Name: "ok", Provider: "docker", K8sVersion: "v1.33.4", MachineImage: "kbook.local/kind-node:v1", ImageK8sVersion: "v1.34.12"}, "Kubernetes version v1.33.4: the node image kbook.local/kind-node:v1 runs v1.34.12"},
	}
	for _, tc := range tests {
		if _, _, err := Init(tc.o); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Init(%+v) error = %v, want %q", tc.o, err, tc.want)
		}
	}
	// Nothing is left behind beside the existing directory.
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestInitServerDryRun sends every object the scaffolds render to a real
// API server with the Cluster API and k0smotron CRDs, as a server-side dry
// run: the schemas and CEL rules of the published CRDs accept them.
func TestInitServerDryRun(t *testing.T) {
	crds := apitest.SharedCRDs("capi", "k0smotron")
	if len(crds) != 2 {
		t.Skip("needs the reference CRDs in shared/crds/capi and shared/crds/k0smotron")
	}
	server := apitest.New(crds...)
	defer server.Stop()
	cfg := server.Config(t)
	dc := discovery.NewDiscoveryClientForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	dyn := dynamic.NewForConfigOrDie(cfg)
	for _, p := range ProviderNames() {
		dir := filepath.Join(t.TempDir(), "c")
		if _, _, err := Init(ChartOptions{Name: "c-" + p, Dir: dir, Provider: p}); err != nil {
			t.Fatal(err)
		}
		for _, config := range []string{"ci/default.yaml", "ci/ha.yaml"} {
			for _, o := range render(t, dir, "dev-1", config) {
				m, err := mapper.RESTMapping(o.GroupVersionKind().GroupKind(), o.GroupVersionKind().Version)
				if err != nil {
					t.Fatalf("%s %s: %v", p, o.GetKind(), err)
				}
				var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
				if m.Scope.Name() == meta.RESTScopeNameNamespace {
					ri = dyn.Resource(m.Resource).Namespace("default")
				}
				_, err = ri.Create(context.Background(), o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				if err != nil && !apierrors.IsAlreadyExists(err) {
					t.Errorf("%s (%s) %s/%s rejected by the API server: %v", p, config, o.GetKind(), o.GetName(), err)
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
