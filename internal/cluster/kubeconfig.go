package cluster

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeconfigCluster is an existing cluster. kbook never stops or deletes it.
type kubeconfigCluster struct {
	name    string
	cfg     *rest.Config
	backend string
	raw     []byte
}

// loadKubeconfig resolves a kubeconfig like kubectl: an explicit path, else
// KUBECONFIG, else ~/.kube/config; an explicit context, else the current one.
func loadKubeconfig(path, context string) (*rest.Config, clientcmdapi.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if path != "" {
		rules.ExplicitPath = path
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, raw, "", fmt.Errorf("load kubeconfig: %w", err)
	}
	name := context
	if name == "" {
		name = raw.CurrentContext
	}
	if name == "" {
		return nil, raw, "", fmt.Errorf("kubeconfig %s has no current context: pass --context", describe(rules))
	}
	if _, ok := raw.Contexts[name]; !ok {
		return nil, raw, "", fmt.Errorf("kubeconfig %s has no context %q", describe(rules), name)
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, raw, "", fmt.Errorf("kubeconfig %s: %w", describe(rules), err)
	}
	return cfg, raw, name, nil
}

func describe(rules *clientcmd.ClientConfigLoadingRules) string {
	if rules.ExplicitPath != "" {
		return rules.ExplicitPath
	}
	return fmt.Sprint(rules.Precedence)
}

func upKubeconfig(ctx context.Context, o Options) (Cluster, error) {
	cfg, raw, name, err := loadKubeconfig(o.Kubeconfig, o.Context)
	if err != nil {
		return nil, err
	}
	if err := ping(ctx, cfg); err != nil {
		return nil, fmt.Errorf("cluster of context %q: %w", name, err)
	}
	// Keep only the chosen context, credentials inlined, for the runbooks.
	min := *raw.DeepCopy()
	min.CurrentContext = name
	if err := clientcmdapi.MinifyConfig(&min); err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	if err := clientcmdapi.FlattenConfig(&min); err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	data, err := clientcmd.Write(min)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return &kubeconfigCluster{name: name, cfg: cfg, backend: Kubeconfig, raw: data}, nil
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
