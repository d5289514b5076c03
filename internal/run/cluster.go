package run

import (
	"fmt"

	"github.com/k0rdent/kbook/internal/cluster"
)

// None is the --cluster value that starts no cluster.
const None = "none"

// ClusterFlags are the cluster flags of kbook run, build and serve as
// given on the command line.
type ClusterFlags struct {
	// Backend is --cluster: cluster.Auto, a backend, or None.
	Backend string
	// Reuse runs against the kbook cluster up cluster Options.Name
	// (default cluster.DefaultName), whose state is under StateRoot.
	Reuse     bool
	StateRoot string
	// Options are the backend's flags: --crds, --kubeconfig, --name...
	Options cluster.Options
	// Changed names the flags given on the command line, set or not to
	// their defaults: --cluster none refuses them, and --cluster auto
	// means kubeconfig when --kubeconfig or --context is among them.
	Changed map[string]bool
}

// noneRefuses are the flags --cluster none has no use for.
var noneRefuses = []string{"crds", "kubeconfig", "context", "kind-image", "kind-workers", "keep-cluster", "reuse", "keep", "name"}

// Cluster checks the flags and returns the run's cluster: none, the
// reused one, or the backend they choose (see cluster.Choose).
func (f ClusterFlags) Cluster() (Cluster, error) {
	if f.Backend == None {
		for _, name := range noneRefuses {
			if f.Changed[name] {
				return Cluster{}, fmt.Errorf("--%s: --cluster none starts no cluster and uses none", name)
			}
		}
		return Cluster{None: true}, nil
	}
	if f.Reuse {
		name := f.Options.Name
		if name == "" {
			name = cluster.DefaultName
		}
		return Cluster{Reuse: name, StateRoot: f.StateRoot, Options: cluster.Options{CRDs: f.Options.CRDs}}, nil
	}
	kubeGiven := f.Changed["kubeconfig"] || f.Changed["context"]
	o, err := cluster.Choose(f.Backend, kubeGiven, f.Options)
	return Cluster{Options: o, Auto: f.Backend == cluster.Auto}, err
}
