package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	kindlog "sigs.k8s.io/kind/pkg/log"

	"github.com/k0rdent/kbook/internal/cluster/kcminstall"
	"github.com/k0rdent/kbook/internal/cluster/nodeimage"
	"github.com/k0rdent/kbook/internal/cluster/plane"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/plural"
	"github.com/k0rdent/kbook/internal/proc"
)

// DefaultKindName is the kind cluster kbook creates unless told otherwise.
const DefaultKindName = "kbook"

// ErrNoRuntime means no container runtime answered: kind cannot run here.
var ErrNoRuntime = errors.New("no container runtime is running")

// Runtime is a container runtime kind can use.
type Runtime struct {
	Name   string
	option kindcluster.ProviderOption
}

var (
	runtimeOnce sync.Once
	runtimeVal  Runtime
	runtimeErr  error
)

// DetectRuntime finds a working container runtime for kind: docker, then
// podman, then nerdctl. Unlike kind's own detection, which only checks that
// a client binary exists, it asks each one `info`, so a docker client
// without a reachable engine does not count. The answer is cached.
func DetectRuntime() (Runtime, error) {
	runtimeOnce.Do(func() { runtimeVal, runtimeErr = detectRuntime(lookAndRun) })
	return runtimeVal, runtimeErr
}

// runFunc runs a runtime's `info` and returns its combined output.
type runFunc func(name string, args ...string) (string, error)

func lookAndRun(name string, args ...string) (string, error) {
	if _, err := exec.LookPath(name); err != nil {
		return "", fmt.Errorf("not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func detectRuntime(run runFunc) (Runtime, error) {
	candidates := []struct {
		name string
		opt  kindcluster.ProviderOption
	}{
		{"docker", kindcluster.ProviderWithDocker()},
		{"podman", kindcluster.ProviderWithPodman()},
		{"nerdctl", kindcluster.ProviderWithNerdctl("")},
	}
	var why []string
	for _, c := range candidates {
		out, err := run(c.name, "info")
		if err == nil {
			return Runtime{Name: c.name, option: c.opt}, nil
		}
		msg := err.Error()
		if line := firstLine(out); line != "" {
			msg = line
		}
		why = append(why, c.name+": "+msg)
	}
	return Runtime{}, fmt.Errorf("%w (%s): start Docker (sudo systemctl start docker; without systemd, dockerd & as root) - see https://docs.docker.com/engine/install/ and kbook's kind page", ErrNoRuntime, strings.Join(why, "; "))
}

// firstLine picks the line of a runtime's output that says why it failed:
// the first that mentions an error or a failure to connect, else the last.
func firstLine(s string) string {
	var last string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		low := strings.ToLower(l)
		if strings.Contains(low, "cannot connect") || strings.Contains(low, "error") || strings.Contains(low, "failed") {
			return l
		}
		last = l
	}
	return last
}

// kindCluster is a kind cluster.
type kindCluster struct {
	provider *kindcluster.Provider
	name     string
	created  bool
	keep     bool
	cfg      *rest.Config
	raw      []byte
	procs    *proc.Registry
	// k0rdent is k0rdent installed into the cluster (--k0rdent): its
	// chart registry serves until Stop.
	k0rdent *kcminstall.Installed
	// machines follows the DockerClusters of CAPD inside the cluster,
	// whose containers are the engine's (not the cluster's): Stop
	// removes those CAPD left.
	machines *plane.DockerMachines
	// registryTags are the names under k0rdent's registry that kbook's
	// node and load balancer images got in the engine: Stop removes them.
	registryTags []string
}

// kindReaper is the proc.External kind of the clusters kbook creates: a
// later run deletes one whose kbook was killed before it could.
const kindReaper = "kind-cluster"

func init() {
	proc.RegisterReaper(kindReaper, func(name string) error {
		rt, err := DetectRuntime()
		if err != nil {
			return err
		}
		return deleteKind(newKindProvider(rt, nil), name)
	})
}

// deleteKind deletes a kind cluster and, when no container is left on
// it, the network kind made for it: nothing of kbook's is left in the
// engine.
func deleteKind(p *kindcluster.Provider, name string) error {
	ids := kindContainerIDs(name)
	if err := whileThawing(ids, func() error { return p.Delete(name, "") }); err != nil {
		return err
	}
	removeIdleNetwork(kindNetwork())
	return nil
}

func upKind(ctx context.Context, o Options) (Cluster, error) {
	rt, err := DetectRuntime()
	if err != nil {
		return nil, fmt.Errorf("kind: %w", err)
	}
	log := o.logger()
	name := o.Name
	if name == "" {
		name = DefaultKindName
	}
	p := newKindProvider(rt, log)
	existing, err := p.List()
	if err != nil {
		return nil, fmt.Errorf("kind: list clusters: %w", err)
	}
	if name, err = unowned(name, existing, o.Procs, log); err != nil {
		return nil, err
	}
	c := &kindCluster{provider: p, name: name, keep: o.KeepCluster, procs: o.Procs}
	// k0rdent's controllers are built (once) before any container is
	// made: a build that fails or is interrupted leaves no cluster.
	var release *controllers.K0rdentRelease
	var paths controllers.K0rdentPaths
	if o.K0rdent != "" {
		if release, err = controllers.K0rdent(o.K0rdent); err != nil {
			return nil, err
		}
		paths, err = controllers.K0rdentDir(ctx, release, controllers.K0rdentLogger(log), controllers.K0rdentAssetsFrom(o.AssetsFrom), controllers.WithInCluster(true))
		if err != nil {
			return nil, err
		}
	}
	if contains(existing, name) {
		log.Infof("reusing kind cluster %q (%s)", name, rt.Name)
	} else {
		image, err := KindNodeImage(ctx, o.KindImage, o.CacheDir, log)
		if err != nil {
			return nil, fmt.Errorf("kind: %w", err)
		}
		var mounts []v1alpha4.Mount
		if release != nil && rt.Name == "docker" {
			mounts = engineSocketMount()
			// The machines of CAPD inside the cluster boot kbook's node
			// image behind its load balancer image: that one is built
			// (once) before the cluster too.
			if strings.HasPrefix(image, nodeimage.Repository+":") {
				if _, err := nodeimage.BuildLoadBalancer(ctx, nodeimage.Options{CacheDir: o.CacheDir, Logger: log}); err != nil {
					return nil, fmt.Errorf("kind: %w", err)
				}
			}
		}
		if err := c.create(ctx, image, o.KindWorkers, mounts, log); err != nil {
			return nil, err
		}
	}
	kc, err := p.KubeConfig(name, false)
	if err != nil {
		c.stopCreated(ctx)
		return nil, fmt.Errorf("kind: kubeconfig of %q: %w", name, err)
	}
	c.raw = []byte(kc)
	if c.cfg, err = clientcmd.RESTConfigFromKubeConfig(c.raw); err != nil {
		c.stopCreated(ctx)
		return nil, fmt.Errorf("kind: kubeconfig of %q: %w", name, err)
	}
	if release != nil {
		if err := c.installK0rdent(ctx, release, paths, rt, log); err != nil {
			c.stopCreated(ctx)
			return nil, err
		}
		if rt.Name == "docker" {
			// CAPD's docker machines are this engine's containers: the
			// images they boot are named after kcm's global registry, and
			// those of a cluster kbook deletes go with it.
			if c.registryTags, err = tagForRegistry(ctx, c.k0rdent.Registry.Cluster, log); err != nil {
				c.stopCreated(ctx)
				return nil, err
			}
			if c.created && !c.keep {
				c.machines = plane.WatchDockerMachines(ctx, c.cfg, c.procs, log)
			}
		}
	}
	return c, nil
}

// tagForRegistry gives kbook's kind node images and CAPD load balancer
// images in the engine their names under registry, kcm's global registry:
// a docker template deployed by kcm names its images there (the chart's
// cluster.fromRegistry, as kcm's own templates do), and CAPD makes its
// machines only from images the engine has or pulls. Tagged, nothing is
// pulled, as kind load does for a cluster's nodes. It returns the tags.
func tagForRegistry(ctx context.Context, registry string, l log.Logger) ([]string, error) {
	var tags []string
	for _, repo := range []string{nodeimage.Repository, nodeimage.LoadBalancerRepository + "/" + nodeimage.LoadBalancerName} {
		out, err := exec.CommandContext(ctx, "docker", "image", "ls", repo, "--format", "{{.Repository}}:{{.Tag}}").Output()
		if err != nil {
			return tags, fmt.Errorf("k0rdent in kind: list %s images: %w", repo, err)
		}
		for _, ref := range strings.Fields(string(out)) {
			if strings.HasSuffix(ref, ":<none>") {
				continue
			}
			_, rest, _ := strings.Cut(ref, "/") // kbook.local/kind-node:TAG
			tag := registry + "/" + rest
			if err := exec.CommandContext(ctx, "docker", "tag", ref, tag).Run(); err != nil {
				return tags, fmt.Errorf("k0rdent in kind: docker tag %s %s: %w", ref, tag, err)
			}
			tags = append(tags, tag)
		}
	}
	if len(tags) > 0 {
		l.Infof("kbook's node and load balancer images tagged under k0rdent's registry for CAPD's docker machines: %s", strings.Join(tags, ", "))
	}
	return tags, nil
}

// untag removes the tags tagForRegistry added (the images keep their own).
func untag(tags []string) {
	for _, t := range tags {
		_ = exec.Command("docker", "image", "rm", t).Run()
	}
}

// engineSocketMount mounts the Docker engine's socket into the control
// plane's node at the path CAPD's Deployment mounts from its host
// (config/manager: hostPath /var/run/docker.sock), as Cluster API's
// quick start does for a kind management cluster: CAPD inside the cluster
// makes its docker machines as this engine's containers.
func engineSocketMount() []v1alpha4.Mount {
	sock := "/var/run/docker.sock"
	if h, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://"); ok {
		sock = h
	}
	return []v1alpha4.Mount{{HostPath: sock, ContainerPath: "/var/run/docker.sock"}}
}

// unowned is the kind cluster name a run uses: name, unless a cluster of
// that name is another running kbook's (it made it, or is making it, and
// deletes it when it ends: reusing it would lose it midway, and installing
// k0rdent twice fails). Then the default name gives way to the first free
// DefaultKindName-N, saying so, and a name given is an error.
func unowned(name string, existing []string, reg *proc.Registry, l log.Logger) (string, error) {
	owner, ok := reg.ExternalOwner(proc.External{Kind: kindReaper, Name: name})
	if !ok { // (one that is another's but not made yet is being made)
		return name, nil
	}
	if name != DefaultKindName {
		return "", fmt.Errorf("kind cluster %q belongs to another kbook (pid %d), which deletes it when it ends: wait for it, or name another cluster", name, owner.PID)
	}
	for i := 2; ; i++ {
		n := fmt.Sprintf("%s-%d", DefaultKindName, i)
		if _, taken := reg.ExternalOwner(proc.External{Kind: kindReaper, Name: n}); !taken && !contains(existing, n) {
			l.Infof("kind cluster %q belongs to another kbook (pid %d), which deletes it when it ends: this run makes %q", name, owner.PID, n)
			return n, nil
		}
	}
}

// installK0rdent installs k0rdent's release r, whose controllers are in
// paths, into the cluster as its QuickStart does (see package kcminstall).
func (c *kindCluster) installK0rdent(ctx context.Context, r *controllers.K0rdentRelease, paths controllers.K0rdentPaths, rt Runtime, log log.Logger) error {
	gw, err := kcminstall.KindGateway(ctx, rt.Name)
	if err != nil {
		return fmt.Errorf("k0rdent in kind: %w", err)
	}
	ns, err := c.Nodes()
	if err != nil {
		return fmt.Errorf("k0rdent in kind: %w", err)
	}
	start := time.Now()
	log.Infof("installing k0rdent %s into kind cluster %q (helm install kcm from kbook's chart registry)…", r.Version, c.name)
	inst, err := kcminstall.Install(ctx, kcminstall.Options{Release: r, Paths: paths, Config: c.cfg, Kubeconfig: c.raw, Nodes: ns, ClusterIP: gw, Logger: log})
	if err != nil {
		return fmt.Errorf("k0rdent in kind: %w", err)
	}
	c.k0rdent = inst
	log.Infof("k0rdent %s installed in %s; not installed: %s", r.Version, time.Since(start).Round(time.Second), strings.Join(inst.LeftOut, "; "))
	return nil
}

// create makes the cluster from image with one control-plane node and
// workers worker nodes (mounts in the control plane's), recorded
// (proc.External) before the first container
// exists. Cancelling ctx deletes what kind made so far at once: kind's
// create has no context, so it is left to fail on the missing containers.
func (c *kindCluster) create(ctx context.Context, image string, workers int, mounts []v1alpha4.Mount, log log.Logger) error {
	ext := proc.External{Kind: kindReaper, Name: c.name}
	if err := c.procs.TrackExternal(ext); err != nil {
		return fmt.Errorf("kind: record cluster %q: %w", c.name, err)
	}
	cfg := &v1alpha4.Cluster{Nodes: []v1alpha4.Node{{Role: v1alpha4.ControlPlaneRole, Image: image, ExtraMounts: mounts}}}
	for i := 0; i < workers; i++ {
		cfg.Nodes = append(cfg.Nodes, v1alpha4.Node{Role: v1alpha4.WorkerRole, Image: image})
	}
	what := "one node"
	if workers > 0 {
		what = fmt.Sprintf("a control plane and %s", plural.Count(workers, "worker"))
	}
	log.Infof("creating kind cluster %q (%s) from %s", c.name, what, image)
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		done <- c.provider.Create(c.name,
			kindcluster.CreateWithV1Alpha4Config(cfg),
			kindcluster.CreateWithWaitForReady(5*time.Minute),
			kindcluster.CreateWithDisplayUsage(false),
			kindcluster.CreateWithDisplaySalutation(false))
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		log.Infof("interrupted: deleting kind cluster %q", c.name)
		_ = c.provider.Delete(c.name, "")
		<-done
		_ = deleteKind(c.provider, c.name)
		c.procs.ForgetExternal(ext)
		return fmt.Errorf("kind: create cluster %q: %w", c.name, context.Cause(ctx))
	}
	if err != nil {
		// kind deletes a cluster whose create failed, unless told to
		// retain it; make sure, then forget it - unless it failed
		// because the cluster exists: another kbook made it meanwhile
		// (kind's create.go: "node(s) already exist for a cluster").
		if !strings.Contains(err.Error(), "already exist for a cluster") {
			_ = deleteKind(c.provider, c.name)
		}
		c.procs.ForgetExternal(ext)
		return fmt.Errorf("kind: create cluster %q: %w", c.name, err)
	}
	c.created = true
	// kind waits for the control plane; runbooks that need nodes need
	// them all.
	if workers > 0 {
		kc, err := c.provider.KubeConfig(c.name, false)
		if err == nil {
			var cfg *rest.Config
			if cfg, err = clientcmd.RESTConfigFromKubeConfig([]byte(kc)); err == nil {
				err = waitNodesReady(ctx, cfg, 1+workers, 5*time.Minute)
			}
		}
		if err != nil {
			c.stopCreated(ctx)
			return fmt.Errorf("kind: cluster %q: %w", c.name, err)
		}
	}
	if c.keep {
		// A kept cluster is the user's once it is up: no later run
		// deletes it.
		c.procs.ForgetExternal(ext)
	}
	log.Infof("kind cluster %q ready in %s", c.name, time.Since(start).Round(time.Second))
	return nil
}

func (c *kindCluster) stopCreated(ctx context.Context) {
	if c.created {
		c.keep = false
		_ = c.Stop(ctx)
	}
}

func newKindProvider(rt Runtime, l log.Logger) *kindcluster.Provider {
	return kindcluster.NewProvider(rt.option, kindcluster.ProviderWithLogger(kindLogger{log.Or(l)}))
}

func (c *kindCluster) Name() string                { return c.name }
func (c *kindCluster) Backend() string             { return Kind }
func (c *kindCluster) RESTConfig() *rest.Config    { return rest.CopyConfig(c.cfg) }
func (c *kindCluster) Kubeconfig() ([]byte, error) { return c.raw, nil }

// Stop deletes the cluster if kbook created it and was not told to keep
// it; a kept one is the user's from then on.
func (c *kindCluster) Stop(context.Context) error {
	if c.k0rdent != nil {
		_ = c.k0rdent.Close()
		c.k0rdent = nil
	}
	if !c.keep { // (a kept cluster's machines may still need them)
		defer func() { untag(c.registryTags); c.registryTags = nil }()
	}
	if !c.created {
		return nil
	}
	ext := proc.External{Kind: kindReaper, Name: c.name}
	if c.keep {
		c.procs.ForgetExternal(ext)
		return nil
	}
	// CAPD's DockerClusters, listed before CAPD goes with the cluster:
	// it makes no more of their containers after.
	listed := c.machines.Clusters()
	if err := deleteKind(c.provider, c.name); err != nil {
		return fmt.Errorf("kind: delete cluster %q: %w", c.name, err)
	}
	if c.machines != nil {
		c.machines.Close(listed)
		c.machines = nil
		removeIdleNetwork(kindNetwork()) // kept by CAPD's containers until now
	}

	c.procs.ForgetExternal(ext)
	return nil
}

// Nodes are the kind cluster's node containers, for loading images.
func (c *kindCluster) Nodes() ([]nodes.Node, error) { return c.provider.ListInternalNodes(c.name) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// kindLogger adapts Logger to kind's logger: user-facing messages only.
type kindLogger struct{ l log.Logger }

func (k kindLogger) Warn(m string)             { k.say(m) }
func (k kindLogger) Warnf(f string, a ...any)  { k.say(fmt.Sprintf(f, a...)) }
func (k kindLogger) Error(m string)            { k.say(m) }
func (k kindLogger) Errorf(f string, a ...any) { k.say(fmt.Sprintf(f, a...)) }

// say passes a message on; kind's status lines come as a "•" line, an
// empty one and a "✓" line per step: only the last says anything.
func (k kindLogger) say(m string) { sayKind(k.l, m) }

func sayKind(l log.Logger, m string) {
	m = strings.TrimSpace(m)
	if m == "" || strings.HasPrefix(m, "•") && strings.HasSuffix(m, "...") {
		return
	}
	l.Infof("kind: %s", m)
}
func (k kindLogger) V(v kindlog.Level) kindlog.InfoLogger {
	return kindInfo{l: k.l, on: v == 0}
}

type kindInfo struct {
	l  log.Logger
	on bool
}

func (k kindInfo) Info(m string) {
	if k.on {
		sayKind(k.l, m)
	}
}

func (k kindInfo) Infof(f string, a ...any) {
	if k.on {
		sayKind(k.l, fmt.Sprintf(f, a...))
	}
}

func (k kindInfo) Enabled() bool { return k.on }
