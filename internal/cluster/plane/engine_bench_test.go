package plane

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/nodeimage"
	"github.com/k0rdent/kbook/internal/template/scaffold"
	"github.com/k0rdent/kbook/internal/testctx"
)

// BenchmarkDockerVsInMemory measures, on one plane and in one run, a
// ClusterDeployment of one control-plane machine and one worker from
// apply to Ready with CAPD's docker machines (containers booted from
// kbook's node image, real kubeadm and kubelets) against one with its
// in-memory machines, and reports both, their ratio and the load. It needs
// a Docker engine and the node and load balancer images (kbook cluster
// image --load-balancer); without them it is skipped, saying which. Run
// it once:
//
//	go test -run '^$' -bench DockerVsInMemory -benchtime 1x -timeout 30m ./internal/cluster/plane
func BenchmarkDockerVsInMemory(b *testing.B) {
	ctx := context.Background()
	node, why, err := nodeimage.Cached(ctx, nodeimage.Options{})
	if err == nil && why == "" {
		var lb nodeimage.LoadBalancerImage
		if lb, why, err = nodeimage.CachedLoadBalancer(ctx, nodeimage.Options{}); err == nil && why == "" {
			b.Logf("machines boot %s behind %s", node.Ref, lb.Ref)
			benchDockerVsInMemory(b, scaffold.ChartOptions{
				Name: "bench-docker", Provider: "docker", MachineImage: node.Ref, ImageK8sVersion: node.Kubernetes,
				LoadBalancerRepository: lb.Repository, LoadBalancerTag: lb.Tag,
			})
			return
		}
	}
	if err != nil {
		b.Skipf("no Docker engine: %v", err)
	}
	b.Skipf("kbook's images: %s (kbook cluster image --load-balancer builds them)", why)
}

func benchDockerVsInMemory(b *testing.B, docker scaffold.ChartOptions) {
	for i := range b.N {
		p, cfg := startPlane(b, server)
		l := newLifecycle(b, p, cfg, fmt.Sprintf("bench-dvm-%d-%d", os.Getpid(), i))
		mem := l.publish(b, "bench-mem")
		dock := l.publishChart(b, docker)
		l.wait(b, ctGVR, mem, 2*time.Minute, valid)
		l.wait(b, ctGVR, dock, 2*time.Minute, valid)

		l.deploy(b, mem, "mem-1")
		memIn := l.wait(b, cdGVR, "mem-1", 3*time.Minute, ready)
		l.undeploy(b, "mem-1")
		l.deploy(b, dock, "docker-1")
		dockIn := l.wait(b, cdGVR, "docker-1", 15*time.Minute, ready)
		load := testctx.LoadAverage()
		l.undeploy(b, "docker-1")

		b.ReportMetric(memIn.Seconds(), "inmemory-ready-s")
		b.ReportMetric(dockIn.Seconds(), "docker-ready-s")
		b.ReportMetric(dockIn.Seconds()/memIn.Seconds(), "docker/inmemory")
		b.ReportMetric(load, "load1")
		b.Logf("ClusterDeployment to Ready: in-memory machines %s, docker machines %s (%.1f×), load %.1f",
			memIn.Round(100*time.Millisecond), dockIn.Round(100*time.Millisecond), dockIn.Seconds()/memIn.Seconds(), load)
		_ = p.Stop()
	}
}
