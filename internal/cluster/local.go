package cluster

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/k0rdent/kbook/internal/assets"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// localCluster is kube-apiserver + etcd started by envtest.
type localCluster struct {
	env *envtest.Environment
	cfg *rest.Config
	dir string // the binaries, kubectl among them where none is on PATH
}

func upLocal(ctx context.Context, o Options) (Cluster, error) {
	log := o.logger()
	dir := o.AssetsDir
	if dir == "" {
		var err error
		dir, err = assets.Dir(ctx, assets.WithLogger(log))
		if err != nil {
			return nil, fmt.Errorf("local cluster: %w", err)
		}
	}
	if err := checkPaths(o.CRDs); err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    dir,
		CRDDirectoryPaths:        o.CRDs,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// envtest reads KUBEBUILDER_ASSETS before BinaryAssetsDirectory; the
	// directory chosen above must win.
	if prev, ok := os.LookupEnv(assets.EnvAssets); ok {
		os.Unsetenv(assets.EnvAssets)
		defer os.Setenv(assets.EnvAssets, prev)
	}
	start := time.Now()
	log.Infof("starting local API server (kube-apiserver + etcd from %s)", dir)
	type result struct {
		cfg *rest.Config
		err error
	}
	done := make(chan result, 1)
	go func() {
		cfg, err := env.Start()
		done <- result{cfg, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			_ = env.Stop()
			return nil, fmt.Errorf("start local API server: %w", r.err)
		}
		log.Infof("local API server ready at %s in %s", r.cfg.Host, time.Since(start).Round(time.Millisecond))
		return &localCluster{env: env, cfg: r.cfg, dir: dir}, nil
	case <-ctx.Done():
		go func() { // stop it once it has started
			<-done
			_ = env.Stop()
		}()
		return nil, fmt.Errorf("start local API server: %w", ctx.Err())
	}
}

func (c *localCluster) Name() string             { return "kbook" }
func (c *localCluster) Backend() string          { return Local }
func (c *localCluster) RESTConfig() *rest.Config { return rest.CopyConfig(c.cfg) }

func (c *localCluster) Kubeconfig() ([]byte, error) {
	if len(c.env.KubeConfig) == 0 {
		return nil, fmt.Errorf("local cluster has no kubeconfig")
	}
	return c.env.KubeConfig, nil
}

func (c *localCluster) Stop(context.Context) error {
	if err := c.env.Stop(); err != nil {
		return fmt.Errorf("stop local API server: %w", err)
	}
	return nil
}
