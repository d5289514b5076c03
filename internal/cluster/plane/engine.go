package plane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
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
// as kind does while the plane has a DockerCluster (making it again if kind
// deletes it with its last cluster meanwhile), removes it once the plane
// has none if it made it and nothing is attached to it, and at Stop
// removes the containers CAPD left for the plane's DockerClusters (a run
// that ended before Cluster API deleted them).
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
	// clusters lists the plane's DockerClusters.
	clusters func() ([]string, error)
	// madeNetwork says this plane made the network (only keep touches it
	// while it runs).
	madeNetwork bool
	// procs records each DockerCluster seen (recorded), as kind's clusters
	// are: their containers carry kind's cluster label, so the reaper of
	// kind clusters (package cluster's) removes those of a killed plane.
	procs      *proc.Registry
	recorded   map[string]bool
	stop, done chan struct{}
}

// startEngine returns the engine for CAPD's docker backend, watching the
// DockerClusters of whose (the plane, or a kind cluster whose CAPD uses
// this engine; listed by clusters) to make and remove the
// network; nil, saying so, when there is no docker command or no engine
// answers (CAPD then fails each docker machine with the reason).
func startEngine(ctx context.Context, l log.Logger, whose string, clusters func() ([]string, error)) *capdEngine {
	bin, err := exec.LookPath("docker")
	if err != nil {
		return nil
	}
	e := &capdEngine{bin: bin, log: l, clusters: clusters}
	v, err := e.run(ctx, "version", "--format", "{{.Server.Version}}")
	if err != nil {
		l.Infof("CAPD's docker backend: no container engine answers, so docker machines cannot be made (%v)", err)
		return nil
	}
	e.version = v
	l.Infof("CAPD's docker backend: Docker %s (network %q while %s has a DockerCluster)", v, capdNetwork, whose)
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
	return true, nil
}

// removeNetwork removes the network this plane made, unless something is
// attached to it (a kind cluster, another plane's machines); it reports
// whether the network is gone.
func (e *capdEngine) removeNetwork(ctx context.Context) (bool, error) {
	n, err := e.run(ctx, "network", "inspect", "--format", "{{len .Containers}}", capdNetwork)
	if err != nil {
		return true, nil // gone already
	}
	if n != "0" {
		return false, nil
	}
	if _, err := e.run(ctx, "network", "rm", capdNetwork); err != nil && !strings.Contains(err.Error(), "No such network") {
		return false, err
	}
	return true, nil
}

// keepEvery is how often the plane looks at its DockerClusters and the
// network: CAPD retries a load balancer it could not make within seconds.
var keepEvery = time.Second

// keep makes the network while the plane has a DockerCluster, and removes
// the one it made once it has none and nothing is attached to it.
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
		names, err := e.clusters()
		if err != nil {
			continue // the API server is busy or gone: next time
		}
		e.track(names)
		ctx := context.Background()
		switch {
		case len(names) > 0:
			made, err := e.ensureNetwork(ctx)
			if err != nil {
				log.Warnf(e.log, "CAPD's docker backend: %v", err)
			} else if made {
				e.log.Infof("CAPD's docker backend: made the network %q for DockerCluster %s", capdNetwork, strings.Join(names, ", "))
				e.madeNetwork = true
			}
		case e.madeNetwork:
			gone, err := e.removeNetwork(ctx)
			if err != nil {
				log.Warnf(e.log, "CAPD's docker backend: %v", err)
			}
			e.madeNetwork = !gone
		}
	}
}

// capdReaper is the kind of proc.External of the kind clusters package
// cluster deletes with kind's library: by kind's cluster label, which
// CAPD's containers carry too.
const capdReaper = "kind-cluster"

// record has the plane's DockerClusters recorded in procs (nil: not).
func (e *capdEngine) record(procs *proc.Registry) {
	if e != nil {
		e.procs, e.recorded = procs, map[string]bool{}
	}
}

// track records the DockerClusters not recorded yet: before CAPD makes
// their first container, since it makes none before the plane has listed
// the DockerCluster at least once in most cases, and the network (made
// here) is needed for any.
func (e *capdEngine) track(names []string) {
	if e.procs == nil {
		return
	}
	for _, n := range names {
		if e.recorded[n] {
			continue
		}
		if err := e.procs.TrackExternal(proc.External{Kind: capdReaper, Name: n}); err == nil {
			e.recorded[n] = true
		}
	}
}

// dockerClustersGVR is CAPD's DockerCluster resource.
var dockerClustersGVR = schema.GroupVersionResource{Group: "infrastructure.cluster.x-k8s.io", Version: "v1beta2", Resource: "dockerclusters"}

// dockerClusters returns a lister of the names of the DockerClusters the
// API server of cfg has.
func dockerClusters(cfg *rest.Config) func() ([]string, error) {
	c := rest.CopyConfig(cfg)
	c.Timeout = 5 * time.Second
	c.WarningHandler = rest.NoWarnings{} // CAPD v1.13 deprecates DockerCluster for DevCluster
	dyn, err := dynamic.NewForConfig(c)
	return func() ([]string, error) {
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		list, err := dyn.Resource(dockerClustersGVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		var names []string
		for _, it := range list.Items {
			names = append(names, it.GetName())
		}
		return names, nil
	}
}

// close stops keep, removes the containers CAPD left for the plane's
// DockerClusters (CAPD has stopped, or stops next: listed before, so it
// makes no more of theirs after), and the network if this plane made it
// and nothing is attached to it. What fails is a warning: the run's result
// does not depend on it. clusters is what the plane's API server listed
// before CAPD stopped (nil when it did not answer).
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
	// What is gone, or was never made, needs no record; a cluster whose
	// containers could not be removed keeps its record for a later run.
	for n := range e.recorded {
		if ids, err := e.run(ctx, "ps", "-a", "-q", "--filter", "label="+capdClusterLabel+"="+n); err == nil && ids == "" {
			e.procs.ForgetExternal(proc.External{Kind: capdReaper, Name: n})
		}
	}
	if e.madeNetwork {
		if _, err := e.removeNetwork(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		log.Warnf(e.log, "CAPD's docker backend: cleaning up: %v", err)
	}
}

// DockerMachines follows the DockerClusters of a cluster whose CAPD is not
// a plane's own process but uses this machine's engine all the same (CAPD
// inside a kind cluster, through the engine's socket mounted into the
// node): as for the plane's, each DockerCluster is recorded in procs
// before CAPD makes its containers (the next kbook reaps those of a
// kbook killed with kill -9), and Close removes the containers CAPD left.
type DockerMachines struct {
	e    *capdEngine
	list func() ([]string, error)
}

// WatchDockerMachines starts following the DockerClusters of the cluster
// at cfg; nil (saying why) when no engine answers.
func WatchDockerMachines(ctx context.Context, cfg *rest.Config, procs *proc.Registry, l log.Logger) *DockerMachines {
	list := dockerClusters(cfg)
	e := startEngine(ctx, l, "the kind cluster", list)
	if e == nil {
		return nil
	}
	e.record(procs)
	return &DockerMachines{e: e, list: list}
}

// Clusters lists the DockerClusters now (nil when the API server does not
// answer): what Close is given, listed before CAPD stops.
func (d *DockerMachines) Clusters() []string {
	if d == nil {
		return nil
	}
	names, _ := d.list()
	return names
}

// Close stops following and removes the containers CAPD left of the
// DockerClusters listed (Clusters, before CAPD stopped).
func (d *DockerMachines) Close(listed []string) {
	if d != nil {
		d.e.close(listed)
	}
}
