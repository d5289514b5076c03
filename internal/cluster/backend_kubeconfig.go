package cluster

import (
	"context"

	"github.com/k0rdent/kbook/internal/cluster/kubeconfig"
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
	l, err := kubeconfig.Connect(ctx, o.Kubeconfig, o.Context)
	if err != nil {
		return nil, err
	}
	// Keep only the chosen context, credentials inlined, for the runbooks.
	data, err := l.Minified()
	if err != nil {
		return nil, err
	}
	return &kubeconfigCluster{name: l.Context, cfg: l.Config, backend: Kubeconfig, raw: data}, nil
}

func (c *kubeconfigCluster) Name() string                { return c.name }
func (c *kubeconfigCluster) Backend() string             { return c.backend }
func (c *kubeconfigCluster) RESTConfig() *rest.Config    { return rest.CopyConfig(c.cfg) }
func (c *kubeconfigCluster) Kubeconfig() ([]byte, error) { return c.raw, nil }
func (c *kubeconfigCluster) Stop(context.Context) error  { return nil }
