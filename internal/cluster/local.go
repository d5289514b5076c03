package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/k0rdent/kbook/internal/assets"
	"github.com/k0rdent/kbook/internal/plane"
	"github.com/k0rdent/kbook/internal/proc"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// localCluster is kube-apiserver + etcd started through envtest's control
// plane.
type localCluster struct {
	cp  *envtest.ControlPlane
	cfg *rest.Config
	kc  []byte
	dir string // the binaries, kubectl among them where none is on PATH
	// dirs are etcd's data and kube-apiserver's certificates (with the
	// server's private keys), removed on Stop.
	dirs []string
	// plane is the k0rdent management plane (Options.K0rdent), its state
	// (certificates with keys, logs, charts) in planeDir.
	plane          *plane.Plane
	planeDir       string
	k0rdentAPIOnly bool
}

// newControlPlane describes etcd and kube-apiserver from the binaries in
// dir, through wrappers that make them die with kbook and record them in
// procs, with directories kbook owns: envtest's own k8s_test_framework_*
// and envtest-serving-certs-* temporary directories would outlive a killed
// kbook, keys included. (envtest.Environment.Start always makes the
// latter, for webhooks kbook does not install, so kbook starts the control
// plane itself and installs CRDs afterwards.)
func newControlPlane(dir string, procs *proc.Registry) (cp *envtest.ControlPlane, dirs []string, err error) {
	defer func() {
		if err != nil {
			for _, d := range dirs {
				_ = os.RemoveAll(d)
			}
			dirs = nil
		}
	}()
	etcdDir, err := procs.MkdirTemp("kbook-etcd-")
	if err != nil {
		return nil, nil, err
	}
	dirs = append(dirs, etcdDir)
	certDir, err := procs.MkdirTemp("kbook-apiserver-")
	if err != nil {
		return nil, dirs, err
	}
	dirs = append(dirs, certDir)
	etcdPath, err := procs.Wrap(filepath.Join(dir, assets.Etcd), assets.Etcd)
	if err != nil {
		return nil, dirs, err
	}
	apiPath, err := procs.Wrap(filepath.Join(dir, assets.KubeAPIServer), assets.KubeAPIServer)
	if err != nil {
		return nil, dirs, err
	}
	const startTimeout, stopTimeout = 2 * time.Minute, 30 * time.Second
	cp = &envtest.ControlPlane{
		Etcd:        &envtest.Etcd{Path: etcdPath, DataDir: etcdDir, StartTimeout: startTimeout, StopTimeout: stopTimeout},
		APIServer:   &envtest.APIServer{Path: apiPath, CertDir: certDir, StartTimeout: startTimeout, StopTimeout: stopTimeout},
		KubectlPath: filepath.Join(dir, assets.Kubectl),
	}
	return cp, dirs, nil
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
	cp, dirs, err := newControlPlane(dir, o.Procs)
	if err != nil {
		return nil, fmt.Errorf("local cluster: %w", err)
	}
	c := &localCluster{cp: cp, dir: dir, dirs: dirs, k0rdentAPIOnly: o.K0rdentAPIOnly}
	start := time.Now()
	log.Infof("starting local API server (kube-apiserver + etcd from %s)", dir)
	done := make(chan error, 1)
	go func() { done <- c.start() }()
	select {
	case err := <-done:
		if err != nil {
			_ = c.Stop(context.Background())
			return nil, fmt.Errorf("start local API server: %w", err)
		}
	case <-ctx.Done():
		go func() { // stop it once it has started
			<-done
			_ = c.Stop(context.Background())
		}()
		return nil, fmt.Errorf("start local API server: %w", ctx.Err())
	}
	log.Infof("local API server ready at %s in %s", c.cfg.Host, time.Since(start).Round(time.Millisecond))
	if err := InstallCRDs(ctx, c.cfg, o.CRDs, log); err != nil {
		_ = c.Stop(context.Background())
		return nil, err
	}
	if o.K0rdent != "" {
		if c.plane, c.planeDir, err = startPlane(ctx, o, c.cfg, c.kc); err != nil {
			_ = c.Stop(context.Background())
			return nil, err
		}
	}
	return c, nil
}

// start starts etcd and kube-apiserver (retrying, as envtest does, when a
// port it picked was taken meanwhile), provisions the admin user and waits
// for the default namespace.
func (c *localCluster) start() error {
	var err error
	for try := 0; try < 3; try++ {
		if err = c.cp.Start(); err == nil {
			break
		}
	}
	if err != nil {
		return err
	}
	admin, err := c.cp.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, &rest.Config{QPS: 1000, Burst: 2000})
	if err != nil {
		return fmt.Errorf("provision the admin user: %w", err)
	}
	if c.kc, err = admin.KubeConfig(); err != nil {
		return fmt.Errorf("admin kubeconfig: %w", err)
	}
	c.cfg = admin.Config()
	cs, err := kubernetes.NewForConfig(c.cfg)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := cs.CoreV1().Namespaces().Get(context.Background(), metav1.NamespaceDefault, metav1.GetOptions{})
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the default namespace did not appear within 30s: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
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
	if err := c.cp.Stop(); err != nil {
		errs = append(errs, fmt.Errorf("stop local API server: %w", err))
	}
	for _, d := range c.dirs {
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, fmt.Errorf("stop local API server: %w", err))
		}
	}
	return errors.Join(errs...)
}
