package cluster

import (
	"context"
	"fmt"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/kubeconfig"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// kubeconfigCluster is an existing cluster. kbook never stops or deletes it.
type kubeconfigCluster struct {
	name    string
	cfg     *rest.Config
	backend string
	raw     []byte
}

func upKubeconfig(ctx context.Context, o Options) (Cluster, error) {
	l, err := kubeconfig.Load(o.Kubeconfig, o.Context)
	if err != nil {
		return nil, err
	}
	if err := ping(ctx, l.Config); err != nil {
		return nil, fmt.Errorf("cluster of context %q: %w", l.Context, err)
	}
	// Keep only the chosen context, credentials inlined, for the runbooks.
	data, err := l.Minified()
	if err != nil {
		return nil, err
	}
	return &kubeconfigCluster{name: l.Context, cfg: l.Config, backend: Kubeconfig, raw: data}, nil
}

// ping checks that the API server answers, with a bounded wait.
func ping(ctx context.Context, cfg *rest.Config) error {
	c := rest.CopyConfig(cfg)
	c.Timeout = 15 * time.Second
	dc, err := discovery.NewDiscoveryClientForConfig(c)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		_, err := dc.ServerVersion()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("cannot reach the API server at %s: %w", cfg.Host, err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *kubeconfigCluster) Name() string                { return c.name }
func (c *kubeconfigCluster) Backend() string             { return c.backend }
func (c *kubeconfigCluster) RESTConfig() *rest.Config    { return rest.CopyConfig(c.cfg) }
func (c *kubeconfigCluster) Kubeconfig() ([]byte, error) { return c.raw, nil }
func (c *kubeconfigCluster) Stop(context.Context) error  { return nil }
