//go:build e2e

package kindtest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/nodeimage"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/testctx"
)

// TestMain doubles as the helper process of TestReapedAfterKill.
func TestMain(m *testing.M) {
	if os.Getenv("KINDTEST_HELPER") != "" {
		helper()
		return
	}
	os.Exit(m.Run())
}

// nodeImage skips the test unless an engine answers and kbook's node image
// is built, and returns the image.
func nodeImage(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("creates kind clusters: not with -short")
	}
	if _, err := cluster.DetectRuntime(); err != nil {
		t.Skipf("no engine: %v", err)
	}
	img, why, err := nodeimage.Cached(context.Background(), nodeimage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if why != "" {
		t.Skipf("kbook's kind node image: %s (kbook cluster image builds it; make test does before these tests)", why)
	}
	return img.Ref
}

// name is a kind cluster name of this test alone.
func name(t *testing.T, what string) string {
	return fmt.Sprintf("kbt-%s-%d", what, os.Getpid())
}

// containers lists the containers of kind cluster n, running or not.
func containers(t *testing.T, n string) []string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-a", "--filter", "label=io.x-k8s.kind.cluster="+n, "--format", "{{.Names}}").Output()
	if err != nil {
		t.Fatalf("docker ps: %v", err)
	}
	return strings.Fields(string(out))
}

// TestClusterFromNodeImage: a cluster of a control plane and a worker
// from kbook's node image has every node Ready, the default StorageClass,
// DNS and the pod network on every node; stopping it leaves no container.
func TestClusterFromNodeImage(t *testing.T) {
	image := nodeImage(t)
	ctx, cancel := testctx.New(t)
	defer cancel()
	n := name(t, "nodes")
	reg, err := proc.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	c, err := cluster.Up(ctx, cluster.Options{Backend: cluster.Kind, Name: n, KindImage: image, KindWorkers: 1, Procs: reg})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = c.Stop(context.Background())
		}
	}()
	if ok, why := cluster.NodesReady(ctx, c); !ok {
		t.Fatalf("nodes: %s", why)
	}
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 2 {
		t.Fatalf("nodes: %d, %v; want 2", len(nodes.Items), err)
	}
	for _, nd := range nodes.Items {
		if v := nd.Status.NodeInfo.KubeletVersion; v != "v1.34.12" {
			t.Errorf("node %s: kubelet %s, want v1.34.12", nd.Name, v)
		}
		if nd.Spec.ProviderID != "kind://docker/"+n+"/"+nd.Name {
			t.Errorf("node %s: providerID %q", nd.Name, nd.Spec.ProviderID)
		}
	}
	sc, err := cs.StorageV1().StorageClasses().Get(ctx, "standard", metav1.GetOptions{})
	if err != nil || sc.Annotations["storageclass.kubernetes.io/is-default-class"] != "true" {
		t.Errorf("default StorageClass standard: %v %v", sc.GetAnnotations(), err)
	}
	// The add-ons come up on real kubelets: wait for them, on events
	// of the API (the poll ends when they are ready, or go test's
	// deadline).
	waitReady(ctx, t, cs, "kube-system", "coredns", false)
	waitReady(ctx, t, cs, "local-path-storage", "local-path-provisioner", false)
	waitReady(ctx, t, cs, "kube-system", "kube-proxy", true)
	waitReady(ctx, t, cs, "kube-system", "kbooknet", true)

	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if left := containers(t, n); len(left) > 0 {
		t.Errorf("containers left after Stop: %v", left)
	}
}

// waitReady waits until a Deployment (or DaemonSet) has all its replicas
// ready (on every node, for a DaemonSet).
func waitReady(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, ns, n string, daemonSet bool) {
	t.Helper()
	last := ""
	for {
		var ready bool
		if daemonSet {
			ds, err := cs.AppsV1().DaemonSets(ns).Get(ctx, n, metav1.GetOptions{})
			if err == nil {
				ready = ds.Status.DesiredNumberScheduled > 0 && ds.Status.NumberReady == ds.Status.DesiredNumberScheduled
				last = fmt.Sprintf("%d of %d ready", ds.Status.NumberReady, ds.Status.DesiredNumberScheduled)
			}
		} else {
			d, err := cs.AppsV1().Deployments(ns).Get(ctx, n, metav1.GetOptions{})
			if err == nil {
				ready = available(d)
				last = fmt.Sprintf("%d of %d ready", d.Status.ReadyReplicas, d.Status.Replicas)
			}
		}
		if ready {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s/%s not ready: %s", ns, n, last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func available(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == "True"
		}
	}
	return false
}

// TestInterruptDuringCreate: Ctrl-C while kind creates the nodes deletes
// them at once, and leaves no record behind.
func TestInterruptDuringCreate(t *testing.T) {
	image := nodeImage(t)
	n := name(t, "int")
	root := t.TempDir()
	reg, err := proc.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	base, stop := testctx.New(t)
	defer stop()
	ctx, cancel := context.WithCancel(base)
	defer cancel()
	// Cancel as soon as the first node container exists: the event, not a
	// delay.
	go func() {
		for ctx.Err() == nil {
			if len(containers(t, n)) > 0 {
				cancel()
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	_, err = cluster.Up(ctx, cluster.Options{Backend: cluster.Kind, Name: n, KindImage: image, Procs: reg})
	if err == nil {
		t.Fatal("Up succeeded although it was interrupted")
	}
	if !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("error = %v, want the cancellation", err)
	}
	if left := containers(t, n); len(left) > 0 {
		t.Errorf("containers left after an interrupted create: %v", left)
	}
	if res, err := proc.Sweep(root); err != nil || len(res) != 0 {
		t.Errorf("records left for the next run: %v %v", res, err)
	}
}

// TestReapedAfterKill: a kbook killed with SIGKILL after creating a cluster
// leaves it running; the next run's sweep deletes it.
func TestReapedAfterKill(t *testing.T) {
	image := nodeImage(t)
	n := name(t, "kill")
	root := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "KINDTEST_HELPER=1", "KINDTEST_ROOT="+root, "KINDTEST_NAME="+n, "KINDTEST_IMAGE="+image)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = exec.Command("docker", "rm", "-f", "-v", n+"-control-plane").Run()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "created" {
		t.Fatalf("helper said %q, %v", line, err)
	}
	if len(containers(t, n)) == 0 {
		t.Fatal("the helper's cluster has no container")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if len(containers(t, n)) == 0 {
		t.Fatal("the cluster went with the killed process: nothing to reap (does kind delete on exit now?)")
	}
	res, err := proc.Sweep(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || len(res[0].Ended) != 1 || res[0].Ended[0].Name != n {
		t.Fatalf("sweep = %+v, want the kind cluster %s ended", res, n)
	}
	if left := containers(t, n); len(left) > 0 {
		t.Errorf("containers left after the sweep: %v", left)
	}
}

// helper creates a cluster recorded in the registry under KINDTEST_ROOT,
// says "created" and waits to be killed.
func helper() {
	reg, err := proc.Open(os.Getenv("KINDTEST_ROOT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_, err = cluster.Up(context.Background(), cluster.Options{Backend: cluster.Kind, Name: os.Getenv("KINDTEST_NAME"), KindImage: os.Getenv("KINDTEST_IMAGE"), Procs: reg})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("created")
	time.Sleep(time.Hour) // until the test kills it
}
