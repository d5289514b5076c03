package cluster

import (
	"context"
	"errors"
	"fmt"
	"github.com/k0rdent/kbook/internal/cluster/plane/releasecrds"
	"github.com/k0rdent/kbook/internal/log"
	"os"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/local"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/cluster/plane"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/plural"
	"k8s.io/client-go/rest"
)

// localCluster is kube-apiserver + etcd (package local), optionally
// with the k0rdent plane.
type localCluster struct {
	srv *local.Server
	cfg *rest.Config
	kc  []byte
	dir string // the binaries, kubectl among them where none is on PATH
	// plane is the k0rdent management plane (Options.K0rdent), its state
	// (certificates with keys, logs, charts) in planeDir.
	plane          *plane.Plane
	planeDir       string
	k0rdentAPIOnly bool
	// stopped is closed by Stop (nil without a plane).
	stopped chan struct{}
}

func upLocal(ctx context.Context, o Options) (Cluster, error) {
	logger := o.logger()
	dir := o.AssetsDir
	if dir == "" {
		var err error
		dir, err = binaries.Dir(ctx, binaries.WithLogger(logger), binaries.WithSource(o.AssetsFrom))
		if err != nil {
			return nil, fmt.Errorf("local cluster: %w", err)
		}
	}
	if err := CheckCRDPaths(o.CRDs); err != nil {
		return nil, err
	}
	rel, err := o.k0rdentRelease()
	if err != nil {
		return nil, err
	}
	var (
		paths       controllers.K0rdentPaths
		planeCRDs   []releasecrds.CRD
		planeInputs []plane.SnapshotInput
	)
	full := rel != nil && !o.K0rdentAPIOnly
	if rel != nil {
		if paths, err = controllers.K0rdentDir(ctx, rel, controllers.APIOnly(o.K0rdentAPIOnly), controllers.K0rdentLogger(logger), controllers.K0rdentAssetsFrom(o.AssetsFrom)); err != nil {
			return nil, err
		}
		if o.K0rdentAPIOnly || !o.NoSnapshot {
			if planeCRDs, err = releasecrds.Load(paths); err != nil {
				return nil, fmt.Errorf("k0rdent %s: %w", rel.Version, err)
			}
		}
		if full && !o.NoSnapshot {
			// Before plane.Start wires the CRDs to this run's webhooks.
			if planeInputs, err = plane.SnapshotInputs(paths, rel, planeCRDs); err != nil {
				log.Warnf(logger, "the k0rdent %s plane starts without a snapshot: %v", rel.Version, err)
			}
		}
	}
	snapCRDs := planeCRDs
	if full {
		snapCRDs = nil // planeInputs has them
	}
	snap, err := snapshotFor(o, dir, snapCRDs, planeInputs)
	if err != nil {
		return nil, err
	}
	c := &localCluster{dir: dir, k0rdentAPIOnly: o.K0rdentAPIOnly}
	fail := func(err error) (Cluster, error) {
		_ = c.Stop(context.Background())
		return nil, err
	}
	if full {
		if err := c.upPlane(ctx, o, snap, paths, planeCRDs); err != nil {
			return fail(err)
		}
		c.stopPlaneOnLoss()
		return c, nil
	}
	restored, err := c.startFromSnapshot(ctx, o, snap)
	if err != nil {
		return fail(err)
	}
	if !restored {
		if err := c.startServer(ctx, o); err != nil {
			return fail(err)
		}
		if err := InstallCRDs(ctx, c.cfg, o.CRDs, logger); err != nil {
			return fail(err)
		}
		if snap != nil {
			// The first start with these CRDs: save etcd's data and
			// start again from it, which also proves it.
			if restored, err = c.saveAndRestart(ctx, o, snap, paths, planeCRDs); err != nil {
				return fail(err)
			}
		}
	}
	if rel != nil {
		if c.plane, c.planeDir, err = startPlane(ctx, o, c.cfg, c.kc, paths, planeCRDs, restored, false, nil); err != nil {
			return fail(err)
		}
		c.stopPlaneOnLoss()
	}
	return c, nil
}

// stopPlaneOnLoss stops the k0rdent controllers as soon as the API server
// is lost: they would otherwise crash against it and be restarted by the
// supervisor until it gave up, for nothing.
func (c *localCluster) stopPlaneOnLoss() {
	c.stopped = make(chan struct{})
	p, lost, stopped := c.plane, c.srv.Lost(), c.stopped
	go func() {
		select {
		case <-lost:
			_ = p.Stop()
		case <-stopped:
		}
	}()
}

// startServer starts kube-apiserver and etcd.
func (c *localCluster) startServer(ctx context.Context, o Options, opts ...local.Option) error {
	start := time.Now()
	o.logger().Infof("starting local API server (kube-apiserver + etcd from %s)", c.dir)
	type started struct {
		srv *local.Server
		err error
	}
	done := make(chan started, 1)
	go func() {
		srv, err := local.Start(c.dir, o.Procs, append([]local.Option{local.WithLogger(o.logger())}, opts...)...)
		done <- started{srv, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return fmt.Errorf("start local API server: %w", r.err)
		}
		c.srv, c.cfg, c.kc = r.srv, r.srv.Config(), r.srv.Kubeconfig()
	case <-ctx.Done():
		go func() { // stop it once it has started
			if r := <-done; r.err == nil {
				_ = r.srv.Stop()
			}
		}()
		return fmt.Errorf("start local API server: %w", ctx.Err())
	}
	o.logger().Infof("local API server ready at %s in %s", c.cfg.Host, time.Since(start).Round(time.Millisecond))
	return nil
}

// startFromSnapshot starts the server from the snapshot's data and checks
// that it serves the snapshot's CRDs. false: there is no snapshot yet, or
// the one there could not be used - it is then removed, with a warning, to
// be made anew.
func (c *localCluster) startFromSnapshot(ctx context.Context, o Options, snap *snapshot) (bool, error) {
	if snap == nil {
		return false, nil
	}
	m, err := snap.manifest()
	if m == nil && err == nil {
		return false, nil
	}
	if err == nil {
		begin := time.Now()
		err = c.startServer(ctx, o, local.WithData(func(dataDir string) error { return snap.restore(m, dataDir) }))
		if err == nil {
			served := time.Now()
			if _, err = servedCRDs(ctx, c.cfg, m.CRDs); err == nil {
				o.logger().Infof("  the snapshot's CRDs established and in discovery in %s", time.Since(served).Round(time.Millisecond))
			}
		}
		if err == nil {
			o.logger().Infof("started from the snapshot of %s (%s) in %s", plural.Count(len(m.CRDs), "CRD"), snap.dir(), time.Since(begin).Round(time.Millisecond))
			return true, nil
		}
		if c.srv != nil {
			_ = c.srv.Stop()
			c.srv = nil
		}
		if ctx.Err() != nil {
			return false, err
		}
	}
	log.Warnf(o.logger(), "snapshot %s cannot be used, making it anew: %v", snap.dir(), err)
	if err := snap.remove(); err != nil {
		return false, fmt.Errorf("remove snapshot: %w", err)
	}
	return false, nil
}

// saveAndRestart installs the k0rdent release's CRDs (API only) on the
// freshly installed server, saves etcd's data as the snapshot and starts
// again from it. A snapshot that cannot be saved is only a warning: the
// server then starts fresh once more.
func (c *localCluster) saveAndRestart(ctx context.Context, o Options, snap *snapshot, paths controllers.K0rdentPaths, planeCRDs []releasecrds.CRD) (bool, error) {
	logger := o.logger()
	begin := time.Now()
	if o.K0rdent != "" {
		p, dir, err := startPlane(ctx, o, c.cfg, c.kc, paths, planeCRDs, false, false, nil)
		if err != nil {
			return false, err
		}
		_ = p.Stop()
		_ = os.RemoveAll(dir)
	}
	names, err := servedCRDs(ctx, c.cfg, nil)
	if err != nil {
		return false, err
	}
	err = c.srv.StopSaving(func(dataDir string) error { return snap.save(dataDir, names, nil) })
	c.srv = nil
	if err == nil {
		logger.Infof("saved a snapshot of the server with %s in %s: later runs with the same CRDs start from it", plural.Count(len(names), "CRD"), time.Since(begin).Round(time.Millisecond))
		return c.startFromSnapshot(ctx, o, snap)
	}
	log.Warnf(logger, "no snapshot saved (%v); starting without one", err)
	if err := c.startServer(ctx, o); err != nil {
		return false, err
	}
	return false, InstallCRDs(ctx, c.cfg, o.CRDs, logger)
}

// upPlane starts the local API server and the k0rdent plane with its
// controllers, bootstrapped until the Management is ready: from the
// snapshot of a bootstrapped plane when there is one (snap), which the
// plane rewires and has its controllers reconcile again. Any failure of
// that is a warning: the snapshot is removed and the plane started afresh.
// A fresh start saves the snapshot (the plane stopped, etcd's data
// saved) and starts again from it, which also proves it; a run whose
// restore failed saves none (the next run makes it).
func (c *localCluster) upPlane(ctx context.Context, o Options, snap *snapshot, paths controllers.K0rdentPaths, crds []releasecrds.CRD) error {
	logger := o.logger()
	restoreFailed := false
	if snap != nil {
		ok, failed, err := c.restorePlane(ctx, o, snap, paths, crds)
		if err != nil || ok {
			return err
		}
		restoreFailed = failed
	}
	fresh := func() error {
		if err := c.startServer(ctx, o); err != nil {
			return err
		}
		if err := InstallCRDs(ctx, c.cfg, o.CRDs, logger); err != nil {
			return err
		}
		var err error
		c.plane, c.planeDir, err = startPlane(ctx, o, c.cfg, c.kc, paths, crds, false, false, nil)
		return err
	}
	if err := fresh(); err != nil {
		return err
	}
	if snap == nil || restoreFailed {
		return nil
	}
	// The machine's plane lock is held once more from here until the
	// restored plane holds it: given back between the two, another
	// process's plane (a test's, a second kbook's) would run in between and
	// this run wait for all of it.
	unlock, err := plane.LockMachine(ctx, func(msg string) { logger.Infof("%s", msg) })
	if err != nil {
		return err
	}
	defer unlock()
	begin := time.Now()
	wiring, err := c.plane.Wiring()
	if err != nil {
		return err
	}
	c.stopPlane()
	names, err := servedCRDs(ctx, c.cfg, nil)
	if err != nil {
		return err
	}
	err = c.srv.StopSaving(func(dataDir string) error { return snap.save(dataDir, names, wiring) })
	c.srv = nil
	if err != nil {
		log.Warnf(logger, "no snapshot of the k0rdent plane saved (%v); starting it afresh once more", err)
		return fresh()
	}
	logger.Infof("saved a snapshot of the bootstrapped k0rdent plane (%s) in %s: later runs start from it", plural.Count(len(names), "CRD"), time.Since(begin).Round(time.Millisecond))
	ok, _, err := c.restorePlane(ctx, o, snap, paths, crds)
	if err != nil || ok {
		return err
	}
	return fresh()
}

// restorePlane starts the server from the snapshot of a bootstrapped
// plane and the plane on it (plane.Options.Restored). Not ok: there is no
// snapshot, or it could not be used (planeFailed: the server started from
// it but the plane did not become ready): it is then removed, with a
// warning, and nothing runs.
func (c *localCluster) restorePlane(ctx context.Context, o Options, snap *snapshot, paths controllers.K0rdentPaths, crds []releasecrds.CRD) (ok, planeFailed bool, err error) {
	restored, err := c.startFromSnapshot(ctx, o, snap)
	if err != nil || !restored {
		return false, false, err
	}
	// Without its wiring (a snapshot saved before kbook kept it, or a
	// damaged file) the plane rewires the CRDs' webhooks instead.
	m, err := snap.manifest()
	var wiring *plane.Wiring
	if err == nil {
		wiring, err = snap.wiring(m)
	}
	if err != nil {
		log.Warnf(o.logger(), "the snapshot's webhook wiring cannot be used (%v): the restored CRDs are rewired", err)
	}
	begin := time.Now()
	c.plane, c.planeDir, err = startPlane(ctx, o, c.cfg, c.kc, paths, crds, true, true, wiring)
	if err == nil {
		o.logger().Infof("started the k0rdent plane from its snapshot, Management ready, in %s", time.Since(begin).Round(time.Millisecond))
		return true, false, nil
	}
	_ = c.srv.Stop()
	c.srv = nil
	if ctx.Err() != nil {
		return false, true, err
	}
	log.Warnf(o.logger(), "the k0rdent plane restored from snapshot %s did not become ready, starting it afresh: %v", snap.dir(), err)
	if err := snap.remove(); err != nil {
		return false, true, fmt.Errorf("remove snapshot: %w", err)
	}
	return false, true, nil
}

// stopPlane stops the k0rdent controllers and removes their directory.
func (c *localCluster) stopPlane() {
	if c.plane != nil {
		_ = c.plane.Stop()
		c.plane = nil
	}
	if c.planeDir != "" {
		_ = os.RemoveAll(c.planeDir)
		c.planeDir = ""
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

// Lost is closed when the local API server's etcd or kube-apiserver exits
// on its own (nil for clusters kbook does not run); why says which, after
// looking at the processes again (local.Server.Check): it is non-nil as
// soon as one is gone, even before lost closes.
func Lost(c Cluster) (lost <-chan struct{}, why func() error) {
	if lc, ok := c.(*localCluster); ok && lc.srv != nil {
		return lc.srv.Lost(), lc.srv.Check
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

// EtcdURL is the client URL of the local API server's etcd ("" for
// other clusters).
func EtcdURL(c Cluster) string {
	if lc, ok := c.(*localCluster); ok && lc.srv != nil {
		return lc.srv.EtcdURL()
	}
	return ""
}

// Plane is the k0rdent management plane the local backend runs, or nil.
func (c *localCluster) Plane() *plane.Plane { return c.plane }

func (c *localCluster) Stop(context.Context) error {
	if c.stopped != nil {
		close(c.stopped)
		c.stopped = nil
	}
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
