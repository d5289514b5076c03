package cluster

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/plane"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/cluster/plane/releasecrds"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/supervisor"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// K0rdentID is how reports and badges name a local plane.
func K0rdentID(version string, apiOnly bool) string {
	if apiOnly {
		return "k0rdent " + version + " API (local)"
	}
	return "k0rdent " + version + " controllers (local)"
}

// k0rdentRelease resolves Options.K0rdent ("" when off).
func (o *Options) k0rdentRelease() (*controllers.K0rdentRelease, error) {
	if o.K0rdent == "" {
		return nil, nil
	}
	if o.Backend != Local {
		return nil, fmt.Errorf("--k0rdent runs the k0rdent controllers on the local backend; for a real management cluster use --kubeconfig without --k0rdent")
	}
	return controllers.K0rdent(o.K0rdent)
}

// startPlane installs the k0rdent CRDs on the local API server (unless it
// started from a snapshot that has them) and, unless API-only, starts the
// controllers (built first, once, into paths). restored: the server
// started from the snapshot of a bootstrapped plane, which the plane
// rewires (plane.Options.Restored), within restoreTimeout; wiring is the
// snapshotted plane's (or nil).
func startPlane(ctx context.Context, o Options, cfg *rest.Config, kubeconfig []byte, paths controllers.K0rdentPaths, crds []releasecrds.CRD, crdsInstalled, restored bool, wiring *plane.Wiring) (*plane.Plane, string, error) {
	r, err := o.k0rdentRelease()
	if err != nil || r == nil {
		return nil, "", err
	}
	// The plane's directory holds the webhooks' private key: the registry
	// removes it even if kbook is killed (at the latest on the next run).
	dir, err := o.Procs.MkdirTemp("kbook-k0rdent-")
	if err != nil {
		return nil, "", fmt.Errorf("k0rdent plane: %w", err)
	}
	var timeout time.Duration // plane.Start's default
	if restored {
		timeout = restoreTimeout
	}
	p, err := plane.Start(ctx, plane.Options{
		Release: r, Paths: paths, RESTConfig: cfg, Kubeconfig: kubeconfig,
		StateDir: dir, APIOnly: o.K0rdentAPIOnly, CRDs: crds, CRDsInstalled: crdsInstalled, Restored: restored, Wiring: wiring,
		Logger: o.logger(), Launcher: supervisor.Registry(o.Procs), Procs: o.Procs, Timeout: timeout,
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", fmt.Errorf("k0rdent %s plane: %w", r.Version, err)
	}
	return p, dir, nil
}

// restoreTimeout bounds the start of a plane restored from its snapshot,
// which takes seconds: past it, the plane is started afresh instead (a
// variable: a test makes the restore fail with it).
var restoreTimeout = 90 * time.Second

var managementGVR = k0rdent.GVR("managements")

// PlaneOf is the k0rdent plane a cluster kbook started runs, or nil.
func PlaneOf(c Cluster) *plane.Plane {
	if lc, ok := c.(*localCluster); ok {
		return lc.plane
	}
	return nil
}

// KcmRunning tells whether kcm reconciles on the cluster: the local plane
// runs its controllers, or (any other cluster) a Management reports Ready,
// which only a running kcm sets. If not, why says so.
func KcmRunning(ctx context.Context, c Cluster) (bool, string) {
	if lc, ok := c.(*localCluster); ok {
		switch {
		case lc.plane == nil:
			return false, "kcm is not running: the local API server has no k0rdent controllers (kbook run --k0rdent " + controllers.DefaultK0rdentVersion + ")"
		case lc.k0rdentAPIOnly:
			return false, "kcm is not running: --k0rdent-api-only serves the k0rdent APIs without controllers"
		}
		if running := lc.plane.Controllers(); !slices.Contains(running, controllers.KCM) {
			return false, "kcm is not running: the local plane's kcm exited (log: " + lc.plane.LogDir() + ")"
		}
		return true, ""
	}
	dc, err := dynamic.NewForConfig(FastConfig(c.RESTConfig()))
	if err != nil {
		return false, err.Error()
	}
	m, err := dc.Resource(managementGVR).Get(ctx, "kcm", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) || isNoMatch(err):
		return false, "kcm is not running: the cluster has no k0rdent Management"
	case err != nil:
		return false, "kcm: " + err.Error()
	}
	if ready, _ := readyCondition(m); ready {
		return true, ""
	}
	return false, "kcm is not running: Management kcm is not Ready"
}

// readyCondition reads u's Ready condition: whether it is True, and its
// message.
func readyCondition(u *unstructured.Unstructured) (bool, string) {
	c, ok := k0rdent.FindCondition(u, "Ready")
	if !ok {
		return false, "no Ready condition yet"
	}
	msg, _ := c["message"].(string)
	return c["status"] == "True", msg
}

// k0rdentState reads the cluster's Management kcm: nil where there is
// none (or it cannot be read).
func k0rdentState(ctx context.Context, c Cluster) *K0rdentState {
	dc, err := dynamic.NewForConfig(FastConfig(c.RESTConfig()))
	if err != nil {
		return nil
	}
	m, err := dc.Resource(managementGVR).Get(ctx, "kcm", metav1.GetOptions{})
	if err != nil {
		return nil
	}
	st := &K0rdentState{}
	st.Release, _, _ = unstructured.NestedString(m.Object, "spec", "release")
	st.Providers, _, _ = unstructured.NestedStringSlice(m.Object, "status", "availableProviders")
	if st.Ready, st.Message = readyCondition(m); st.Ready {
		st.Message = ""
	}
	return st
}

func isNoMatch(err error) bool {
	return meta.IsNoMatchError(err) || (err != nil && strings.Contains(err.Error(), "could not find the requested resource"))
}
