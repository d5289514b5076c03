package cluster

import (
	"context"
	"errors"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
)

// AssetsOptions are Assets'.
type AssetsOptions struct {
	// K0rdent is the k0rdent release to prepare ("": the local backend's
	// binaries).
	K0rdent string
	// APIOnly: the release's modules alone, no controller.
	APIOnly bool
	// InCluster: the controllers only k0rdent inside kind runs too
	// (cert-manager, the Cluster API operator).
	InCluster bool
	// From says where binaries not yet cached come from (--assets-from).
	From assetsfrom.Source
	// Logger hears progress.
	Logger log.Logger
}

// Assets is kbook cluster assets: the folder of the local backend's
// binaries (KUBEBUILDER_ASSETS, else built once into kbook's cache), or,
// when o.K0rdent is set, the cache folder of that k0rdent release's
// modules and controllers. An unknown release is a findings.InputError.
func Assets(ctx context.Context, o AssetsOptions) (string, error) {
	log := log.Or(o.Logger)
	if o.K0rdent == "" {
		return binaries.Dir(ctx, binaries.WithLogger(log), binaries.WithSource(o.From))
	}
	if o.APIOnly && o.InCluster {
		return "", &findings.InputError{Err: errors.New("--api-only builds no controller; --in-cluster asks for more of them")}
	}
	r, err := controllers.K0rdent(o.K0rdent)
	if err != nil {
		return "", &findings.InputError{Err: err}
	}
	p, err := controllers.K0rdentDir(ctx, r, controllers.APIOnly(o.APIOnly), controllers.WithInCluster(o.InCluster),
		controllers.K0rdentLogger(log), controllers.K0rdentAssetsFrom(o.From))
	if err != nil {
		return "", err
	}
	return p.Dir, nil
}
