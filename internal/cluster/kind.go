package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"
	kindlog "sigs.k8s.io/kind/pkg/log"

	"github.com/k0rdent/kbook/internal/log"
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
	return Runtime{}, fmt.Errorf("%w (%s)", ErrNoRuntime, strings.Join(why, "; "))
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
	c := &kindCluster{provider: p, name: name, keep: o.KeepCluster}
	if contains(existing, name) {
		log.Infof("reusing kind cluster %q (%s)", name, rt.Name)
	} else {
		log.Infof("creating kind cluster %q with %s (a few minutes)", name, rt.Name)
		opts := []kindcluster.CreateOption{
			kindcluster.CreateWithWaitForReady(5 * time.Minute),
			kindcluster.CreateWithDisplayUsage(false),
			kindcluster.CreateWithDisplaySalutation(false),
		}
		if o.KindImage != "" {
			opts = append(opts, kindcluster.CreateWithNodeImage(o.KindImage))
		}
		done := make(chan error, 1)
		go func() { done <- p.Create(name, opts...) }()
		select {
		case err = <-done:
		case <-ctx.Done():
			err = <-done // kind has no context: let it finish, then delete
			_ = p.Delete(name, "")
			return nil, fmt.Errorf("kind: create cluster %q: %w", name, ctx.Err())
		}
		if err != nil {
			return nil, fmt.Errorf("kind: create cluster %q: %w", name, err)
		}
		c.created = true
	}
	kc, err := p.KubeConfig(name, false)
	if err != nil {
		return nil, fmt.Errorf("kind: kubeconfig of %q: %w", name, err)
	}
	c.raw = []byte(kc)
	if c.cfg, err = clientcmd.RESTConfigFromKubeConfig(c.raw); err != nil {
		return nil, fmt.Errorf("kind: kubeconfig of %q: %w", name, err)
	}
	return c, nil
}

func newKindProvider(rt Runtime, log log.Logger) *kindcluster.Provider {
	return kindcluster.NewProvider(rt.option, kindcluster.ProviderWithLogger(kindLogger{log}))
}

func (c *kindCluster) Name() string                { return c.name }
func (c *kindCluster) Backend() string             { return Kind }
func (c *kindCluster) RESTConfig() *rest.Config    { return rest.CopyConfig(c.cfg) }
func (c *kindCluster) Kubeconfig() ([]byte, error) { return c.raw, nil }

// Stop deletes the cluster if kbook created it and was not told to keep it.
func (c *kindCluster) Stop(context.Context) error {
	if !c.created || c.keep {
		return nil
	}
	if err := c.provider.Delete(c.name, ""); err != nil {
		return fmt.Errorf("kind: delete cluster %q: %w", c.name, err)
	}
	return nil
}

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

func (k kindLogger) Warn(m string)             { k.l.Infof("kind: %s", m) }
func (k kindLogger) Warnf(f string, a ...any)  { k.l.Infof("kind: "+f, a...) }
func (k kindLogger) Error(m string)            { k.l.Infof("kind: %s", m) }
func (k kindLogger) Errorf(f string, a ...any) { k.l.Infof("kind: "+f, a...) }
func (k kindLogger) V(v kindlog.Level) kindlog.InfoLogger {
	return kindInfo{l: k.l, on: v == 0}
}

type kindInfo struct {
	l  log.Logger
	on bool
}

func (k kindInfo) Info(m string) {
	if k.on {
		k.l.Infof("kind: %s", m)
	}
}

func (k kindInfo) Infof(f string, a ...any) {
	if k.on {
		k.l.Infof("kind: "+f, a...)
	}
}

func (k kindInfo) Enabled() bool { return k.on }
