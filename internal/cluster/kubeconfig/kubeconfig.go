package kubeconfig

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Loaded is a kubeconfig resolved to one context.
type Loaded struct {
	// Config is the client configuration of the context.
	Config *rest.Config
	// Raw is the whole kubeconfig as loaded (every file merged).
	Raw clientcmdapi.Config
	// Context names the context used: the one asked for, else the
	// current one.
	Context string
	// Namespace is the context's namespace, "default" when it sets none.
	Namespace string
	// Source names the file (or the files searched) for messages.
	Source string
}

// Load resolves the kubeconfig at path ("": $KUBECONFIG, else
// ~/.kube/config) to context ("": the current context). It does not
// contact the server. A missing file, a missing context or a kubeconfig
// without a current context is an error naming the file.
func Load(path, context string) (*Loaded, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	l := &Loaded{Source: describe(rules)}
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	l.Raw = raw
	l.Context = context
	if l.Context == "" {
		l.Context = raw.CurrentContext
	}
	if l.Context == "" {
		return nil, fmt.Errorf("kubeconfig %s has no current context: pass --context", l.Source)
	}
	if _, ok := raw.Contexts[l.Context]; !ok {
		return nil, fmt.Errorf("kubeconfig %s has no context %q", l.Source, l.Context)
	}
	if l.Config, err = cc.ClientConfig(); err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", l.Source, err)
	}
	if l.Namespace, _, err = cc.Namespace(); err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", l.Source, err)
	}
	if l.Namespace == "" {
		l.Namespace = "default"
	}
	return l, nil
}

// Connect loads the kubeconfig as Load does and checks that the context's
// API server answers (Ping): what a command that works on an existing
// cluster does first.
func Connect(ctx context.Context, path, context string) (*Loaded, error) {
	l, err := Load(path, context)
	if err != nil {
		return nil, err
	}
	if err := Ping(ctx, l.Config); err != nil {
		return nil, fmt.Errorf("cluster of context %q: %w", l.Context, err)
	}
	return l, nil
}

// Ping checks that the API server answers, with a bounded wait.
func Ping(ctx context.Context, cfg *rest.Config) error {
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

// Minified is the kubeconfig of the loaded context alone, credentials
// inlined: what a runbook gets for an existing cluster.
func (l *Loaded) Minified() ([]byte, error) {
	min := *l.Raw.DeepCopy()
	min.CurrentContext = l.Context
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
	return data, nil
}

func describe(rules *clientcmd.ClientConfigLoadingRules) string {
	if rules.ExplicitPath != "" {
		return rules.ExplicitPath
	}
	return fmt.Sprint(rules.Precedence)
}
