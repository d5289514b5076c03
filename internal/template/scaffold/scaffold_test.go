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
			got, files, err := Init(Options{Name: "acme-" + tc.provider, Dir: dir, Provider: tc.provider})
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
	if _, _, err := Init(Options{Name: "acme-mem", Dir: dir, Provider: "inmemory"}); err != nil {
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

func TestInitErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		o    Options
		want string
	}{
		{Options{Name: "Bad_Name", Provider: "docker"}, `chart name "Bad_Name": use lowercase`},
		{Options{Name: "ok", Provider: "aws"}, `provider "aws": want one of docker, k0smotron`},
		{Options{Name: "ok", Provider: "docker", K8sVersion: "1.34"}, `Kubernetes version "1.34": want vMAJOR.MINOR.PATCH`},
		{Options{Name: "ok", Provider: "docker", Dir: dir}, dir + " already exists"},
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
		if _, _, err := Init(Options{Name: "c-" + p, Dir: dir, Provider: p}); err != nil {
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
