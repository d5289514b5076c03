package template

import (
	"context"
	"fmt"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/cluster/plane/releasecrds"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/schema"
)

// NoRelease as Options.K0rdent checks objects against the --crds files
// only, with no k0rdent release's CRDs.
const NoRelease = "none"

// releaseSchemas builds the schemas template validate checks objects
// against by default: the CRDs of the k0rdent release's management plane
// (kcm, Flux, Sveltos, Cluster API core, kubeadm and CAPD), read from the
// release's Go modules exactly as the local plane of kbook run --k0rdent
// installs them (releasecrds.Load: contract labels included), then the CRDs
// of files, which replace same-named ones. The module trees are fetched
// into the cache on first use (go mod download through the module proxy:
// seconds; no controller is built).
func releaseSchemas(ctx context.Context, version, cacheDir string, files []string, lg log.Logger) (*schema.Validator, error) {
	rel, err := controllers.K0rdent(version)
	if err != nil {
		return nil, err
	}
	opts := []controllers.K0rdentOption{controllers.APIOnly(true), controllers.K0rdentLogger(lg)}
	if cacheDir != "" {
		opts = append(opts, controllers.K0rdentCacheDir(cacheDir))
	}
	paths, err := controllers.K0rdentDir(ctx, rel, opts...)
	if err != nil {
		return nil, fmt.Errorf("the CRDs of k0rdent %s could not be had: %w", rel.Version, err)
	}
	crds, err := releasecrds.Load(paths)
	if err != nil {
		return nil, fmt.Errorf("the CRDs of k0rdent %s: %w", rel.Version, err)
	}
	src := make([]schema.Sourced, len(crds))
	for i, c := range crds {
		src[i] = schema.Sourced{CRD: c.Object, Where: "k0rdent " + rel.Version + " " + c.Source}
	}
	return schema.FromCRDs(src, files...)
}
