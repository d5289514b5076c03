package cluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// waitNodesReady waits until the cluster has want nodes, all Ready, or
// timeout passes.
func waitNodesReady(ctx context.Context, cfg *rest.Config, want int, timeout time.Duration) error {
	cs, err := kubernetes.NewForConfig(FastConfig(cfg))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	last := "no node yet"
	for {
		list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err == nil {
			ready := 0
			for _, n := range list.Items {
				if nodeReady(n) {
					ready++
				}
			}
			if len(list.Items) >= want && ready == len(list.Items) {
				return nil
			}
			last = fmt.Sprintf("%d of %d nodes Ready", ready, want)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("nodes not Ready after %s: %s", timeout, last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func nodeReady(n corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// NodesReady tells whether the cluster has real kubelets, every node Ready
// (the "nodes" requirement of runbooks: pods run there); why says
// otherwise what is missing.
func NodesReady(ctx context.Context, c Cluster) (bool, string) {
	cs, err := kubernetes.NewForConfig(FastConfig(c.RESTConfig()))
	if err != nil {
		return false, err.Error()
	}
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, fmt.Sprintf("list nodes: %v", err)
	}
	if len(list.Items) == 0 {
		return false, "the cluster has no nodes (no kubelet registered), so no pod runs"
	}
	var notReady []string
	for _, n := range list.Items {
		if !nodeReady(n) {
			notReady = append(notReady, n.Name)
		}
	}
	if len(notReady) > 0 {
		return false, fmt.Sprintf("nodes not Ready: %s", strings.Join(notReady, ", "))
	}
	return true, ""
}
