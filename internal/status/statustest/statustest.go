package statustest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/status"
)

// Namespace creates a namespace for a test, named prefix and a number no
// other call in this test binary gets, and deletes it afterwards; it
// returns the name. The number is what lets a test run again in the same
// binary (go test -count=2): the local API server runs no namespace
// controller, so a deleted namespace stays Terminating for good and its
// name cannot be created again.
func Namespace(t *testing.T, cfg *rest.Config, prefix string, annotations map[string]string) string {
	t.Helper()
	name := fmt.Sprintf("%s-%d", prefix, namespaces.Add(1))
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return name
}

// namespaces numbers the namespaces Namespace creates.
var namespaces atomic.Int64

// Apply creates the objects of objectsFile in namespace ns (namespaced
// kinds), then writes the status of statusFile ("" for none).
func Apply(t *testing.T, c *status.Client, ns, objectsFile, statusFile string) {
	t.Helper()
	ctx := context.Background()
	data, err := os.ReadFile(objectsFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range splitYAML(data) {
		var u unstructured.Unstructured
		if err := yaml.Unmarshal(doc, &u.Object); err != nil {
			t.Fatalf("%s: %v", objectsFile, err)
		}
		if len(u.Object) == 0 {
			continue
		}
		gvk := u.GroupVersionKind()
		ri, err := c.Resource(gvk.Group, gvk.Kind, ns)
		if err != nil {
			t.Fatalf("%s %s: %v", gvk.Kind, u.GetName(), err)
		}
		if _, err := ri.Create(ctx, &u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s %s: %v", gvk.Kind, u.GetName(), err)
		}
	}
	if statusFile == "" {
		return
	}
	WriteStatus(t, c, ns, statusFile)
}

// WriteStatus writes the status of statusFile: a map of Kind/name to
// status. The kind's group is found among the objects of ns.
func WriteStatus(t *testing.T, c *status.Client, ns, statusFile string) {
	t.Helper()
	ctx := context.Background()
	data, err := os.ReadFile(statusFile)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]map[string]any
	if err := yaml.Unmarshal(data, &st); err != nil {
		t.Fatalf("%s: %v", statusFile, err)
	}
	for key, s := range st {
		kind, name, _ := strings.Cut(key, "/")
		group, ok := groups[kind]
		if !ok {
			t.Fatalf("%s: kind %s: add its group to statustest", statusFile, kind)
		}
		ri, err := c.Resource(group, kind, ns)
		if err != nil {
			t.Fatal(err)
		}
		u, err := ri.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		u.Object["status"] = s
		if _, err := ri.UpdateStatus(ctx, u, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("status of %s: %v", key, err)
		}
	}
}

var groups = map[string]string{
	k0rdent.KindClusterDeployment: k0rdent.Group, k0rdent.KindClusterTemplate: k0rdent.Group,
	k0rdent.KindCredential: k0rdent.Group, k0rdent.KindManagement: k0rdent.Group,
	k0rdent.KindServiceTemplate: k0rdent.Group, k0rdent.KindHelmRelease: k0rdent.FluxHelmGroup,
	k0rdent.KindCluster: k0rdent.CAPIGroup, k0rdent.KindMachineDeployment: k0rdent.CAPIGroup, k0rdent.KindMachine: k0rdent.CAPIGroup,
	"DockerCluster": k0rdent.InfrastructureGroup, "K0sControlPlane": k0rdent.ControlPlaneGroup,
}

// Group returns the API group of a fixture kind.
func Group(kind string) schema.GroupKind { return schema.GroupKind{Group: groups[kind], Kind: kind} }

func splitYAML(data []byte) [][]byte {
	var out [][]byte
	for _, part := range bytes.Split(data, []byte("\n---")) {
		if len(bytes.TrimSpace(part)) > 0 {
			out = append(out, part)
		}
	}
	return out
}

// Skip skips t unless all the CRD folders exist.
func Skip(t *testing.T, dirs []string, want int) {
	t.Helper()
	if len(dirs) < want {
		t.Skip("../shared/crds (k0rdent, capi, k0smotron) is not beside the repository: skipping the tests on a real API server with those CRDs")
	}
}
