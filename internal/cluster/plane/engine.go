package plane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/log"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// CAPD's docker backend. CAPD (the same build as its in-memory backend)
// makes a DockerCluster's load balancer and its DockerMachines as
// privileged containers of the engine the docker client environment names
// (DOCKER_HOST, else the local socket; test/infrastructure/container/
// docker.go), always on the network "kind" (DefaultNetwork in
// test/infrastructure/docker/internal/docker/manager.go), which it never
// creates: under a kind management cluster, kind made it. The local plane
// runs CAPD as a process, so when an engine answers it makes that network
// as kind does, keeps it while it runs (kind deletes its network with the
// last kind cluster on it, while CAPD's machines may still be to come),
// and at Stop removes the containers CAPD left for the plane's
// DockerClusters (a run that ended before Cluster API deleted them) and
// the network, if it made it and nothing else is attached to it.
const (
	capdNetwork = "kind"
	// capdClusterLabel is the label CAPD (as kind) puts on every
	// container of a cluster, with the cluster's name.
	capdClusterLabel = "io.x-k8s.kind.cluster"
	// networkLabel marks the network a plane made.
	networkLabel = "io.k0rdent.kbook.plane"
)

// capdEngine is the container engine CAPD's docker backend uses.
type capdEngine struct {
	bin     string
	version string
	log     log.Logger
	// madeNetwork says this plane made the network.
	mu          sync.Mutex
	madeNetwork bool
	stop        chan struct{}
	done        chan struct{}
}

// startEngine returns the engine for CAPD's docker backend, with its
// network made and kept; nil, saying so, when there is no docker command or
// no engine answers (CAPD then fails each docker machine with the reason).
func startEngine(ctx context.Context, l log.Logger) *capdEngine {
	bin, err := exec.LookPath("docker")
	if err != nil {
		return nil
	}
	e := &capdEngine{bin: bin, log: l}
	v, err := e.run(ctx, "version", "--format", "{{.Server.Version}}")
	if err != nil {
		l.Infof("CAPD's docker backend: no container engine answers, so docker machines cannot be made (%v)", err)
		return nil
	}
	e.version = v
	made, err := e.ensureNetwork(ctx)
	if err != nil {
		log.Warnf(l, "CAPD's docker backend: %v", err)
		return nil
	}
	how := "there already"
	if made {
		how = "made for it"
	}
	l.Infof("CAPD's docker backend: Docker %s, network %q (%s)", v, capdNetwork, how)
	e.stop, e.done = make(chan struct{}), make(chan struct{})
	go e.keep()
	return e
}

// run runs docker briefly and returns its output; a failure carries its
// standard error.
func (e *capdEngine) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("docker %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// ensureNetwork makes CAPD's network unless it is there, as kind makes
// its own (sigs.k8s.io/kind's docker provider, network.go): a bridge that
// masquerades, with the MTU of the engine's default bridge.
func (e *capdEngine) ensureNetwork(ctx context.Context) (made bool, err error) {
	if _, err := e.run(ctx, "network", "inspect", "--format", "{{.Name}}", capdNetwork); err == nil {
		return false, nil
	}
	args := []string{"network", "create", "-d=bridge", "-o", "com.docker.network.bridge.enable_ip_masquerade=true",
		"--label", networkLabel + "=" + strconv.Itoa(os.Getpid())}
	if mtu, err := e.run(ctx, "network", "inspect", "bridge", "--format", `{{ index .Options "com.docker.network.driver.mtu" }}`); err == nil {
		if n, err := strconv.Atoi(mtu); err == nil && n > 0 {
			args = append(args, "-o", "com.docker.network.driver.mtu="+mtu)
		}
	}
	if _, err := e.run(ctx, append(args, capdNetwork)...); err != nil {
		if strings.Contains(err.Error(), "already exists") {
			return false, nil
		}
		return false, fmt.Errorf("network %q for its machines: %w", capdNetwork, err)
	}
	e.mu.Lock()
	e.madeNetwork = true
	e.mu.Unlock()
	return true, nil
}

// keepEvery is how often the plane checks that CAPD's network is there.
var keepEvery = 5 * time.Second

// keep makes the network again if it goes while the plane runs (kind
// deletes it with its last cluster when nothing is attached).
func (e *capdEngine) keep() {
	defer close(e.done)
	t := time.NewTicker(keepEvery)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
		}
		if made, err := e.ensureNetwork(context.Background()); err != nil {
			log.Warnf(e.log, "CAPD's docker backend: %v", err)
		} else if made {
			e.log.Infof("CAPD's docker backend: network %q was gone: made it again", capdNetwork)
		}
	}
}

// dockerClustersGVR is CAPD's DockerCluster resource.
var dockerClustersGVR = schema.GroupVersionResource{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Resource: "dockerclusters"}

// dockerClusters lists the names of the plane's DockerClusters (nil when
// the API server does not answer).
func dockerClusters(cfg *rest.Config) []string {
	if cfg == nil {
		return nil
	}
	c := rest.CopyConfig(cfg)
	c.Timeout = 5 * time.Second
	dyn, err := dynamic.NewForConfig(c)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list, err := dyn.Resource(dockerClustersGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	var names []string
	for _, it := range list.Items {
		names = append(names, it.GetName())
	}
	return names
}

// close stops keeping the network, removes the containers CAPD left for
// the clusters named (CAPD has stopped: it makes no more), and the network
// if this plane made it and nothing is attached to it any more. What fails
// is a warning: the run's result does not depend on it.
func (e *capdEngine) close(clusters []string) {
	if e == nil {
		return
	}
	close(e.stop)
	<-e.done
	ctx := context.Background()
	var errs []error
	for _, c := range clusters {
		ids, err := e.run(ctx, "ps", "-a", "-q", "--filter", "label="+capdClusterLabel+"="+c)
		if err != nil || ids == "" {
			errs = append(errs, err)
			continue
		}
		list := strings.Fields(ids)
		if _, err := e.run(ctx, append([]string{"rm", "-f", "-v"}, list...)...); err != nil {
			errs = append(errs, err)
			continue
		}
		log.Warnf(e.log, "removed %d container(s) CAPD left of DockerCluster %s: the plane stopped before Cluster API deleted them", len(list), c)
	}
	e.mu.Lock()
	made := e.madeNetwork
	e.mu.Unlock()
	if made {
		if n, err := e.run(ctx, "network", "inspect", "--format", "{{len .Containers}}", capdNetwork); err == nil && n == "0" {
			if _, err := e.run(ctx, "network", "rm", capdNetwork); err != nil && !strings.Contains(err.Error(), "No such network") {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		log.Warnf(e.log, "CAPD's docker backend: cleaning up: %v", err)
	}
}
