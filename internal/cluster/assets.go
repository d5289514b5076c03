package cluster

import (
	"context"

	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
)

// Assets is kbook cluster assets: the folder of the local backend's
// binaries (KUBEBUILDER_ASSETS, else built once into kbook's cache), or,
// when k0rdent is set, the cache folder of that k0rdent release's modules
// and controllers (apiOnly: the modules alone); from says where binaries
// not yet cached come from (--assets-from). An unknown release is a
// findings.InputError.
func Assets(ctx context.Context, k0rdent string, apiOnly bool, from binaries.Source, logger log.Logger) (string, error) {
	log := log.Or(logger)
	if k0rdent == "" {
		return binaries.Dir(ctx, binaries.WithLogger(log), binaries.WithSource(from))
	}
	r, err := controllers.K0rdent(k0rdent)
	if err != nil {
		return "", &findings.InputError{Err: err}
	}
	p, err := controllers.K0rdentDir(ctx, r, controllers.APIOnly(apiOnly), controllers.K0rdentLogger(log), controllers.K0rdentAssetsFrom(string(from)))
	if err != nil {
		return "", err
	}
	return p.Dir, nil
}
