package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/k0rdent/kbook/internal/assets"
	"github.com/k0rdent/kbook/internal/localapi"
	"github.com/k0rdent/kbook/internal/plane"
	"k8s.io/client-go/rest"
)

// localCluster is kube-apiserver + etcd (package localapi), optionally
// with the k0rdent plane.
type localCluster struct {
	srv *localapi.Server
	cfg *rest.Config
	kc  []byte
	dir string // the binaries, kubectl among them where none is on PATH
	// plane is the k0rdent management plane (Options.K0rdent), its state
	// (certificates with keys, logs, charts) in planeDir.
	plane          *plane.Plane
	planeDir       string
	k0rdentAPIOnly bool
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
	if err := CheckCRDPaths(o.CRDs); err != nil {
		return nil, err
	}
	if _, err := o.k0rdentRelease(); err != nil {
		return nil, err
	}
	c := &localCluster{dir: dir, k0rdentAPIOnly: o.K0rdentAPIOnly}
	start := time.Now()
	log.Infof("starting local API server (kube-apiserver + etcd from %s)", dir)
	type started struct {
		srv *localapi.Server
		err error
	}
	done := make(chan started, 1)
	go func() {
		srv, err := localapi.Start(dir, o.Procs)
		done <- started{srv, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("start local API server: %w", r.err)
		}
		c.srv, c.cfg, c.kc = r.srv, r.srv.Config(), r.srv.Kubeconfig()
	case <-ctx.Done():
		go func() { // stop it once it has started
			if r := <-done; r.err == nil {
				_ = r.srv.Stop()
			}
		}()
		return nil, fmt.Errorf("start local API server: %w", ctx.Err())
	}
	log.Infof("local API server ready at %s in %s", c.cfg.Host, time.Since(start).Round(time.Millisecond))
	if err := InstallCRDs(ctx, c.cfg, o.CRDs, log); err != nil {
		_ = c.Stop(context.Background())
		return nil, err
	}
	if o.K0rdent != "" {
		var err error
		if c.plane, c.planeDir, err = startPlane(ctx, o, c.cfg, c.kc); err != nil {
			_ = c.Stop(context.Background())
			return nil, err
		}
	}
	return c, nil
}

func (c *localCluster) Name() string             { return "kbook" }
func (c *localCluster) Backend() string          { return Local }
func (c *localCluster) RESTConfig() *rest.Config { return rest.CopyConfig(c.cfg) }

func (c *localCluster) Kubeconfig() ([]byte, error) {
	if len(c.kc) == 0 {
		return nil, fmt.Errorf("local cluster has no kubeconfig")
	}
	return c.kc, nil
}

// Lost is closed when the local API server's etcd or kube-apiserver exits
// on its own (nil for clusters kbook does not run); Err says which.
func Lost(c Cluster) (lost <-chan struct{}, why func() error) {
	if lc, ok := c.(*localCluster); ok && lc.srv != nil {
		return lc.srv.Lost(), lc.srv.Err
	}
	return nil, func() error { return nil }
}

// ServerPIDs maps the local API server's etcd and kube-apiserver to their
// process ids (nil for other clusters).
func ServerPIDs(c Cluster) map[string]int {
	if lc, ok := c.(*localCluster); ok && lc.srv != nil {
		return lc.srv.PIDs()
	}
	return nil
}

// Plane is the k0rdent management plane the local backend runs, or nil.
func (c *localCluster) Plane() *plane.Plane { return c.plane }

func (c *localCluster) Stop(context.Context) error {
	var errs []error
	if c.plane != nil {
		// The controllers first: they would log errors without the API server.
		if err := c.plane.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("stop k0rdent plane: %w", err))
		}
	}
	if c.planeDir != "" {
		if err := os.RemoveAll(c.planeDir); err != nil {
			errs = append(errs, err)
		}
	}
	if c.srv != nil {
		errs = append(errs, c.srv.Stop())
	}
	return errors.Join(errs...)
}
