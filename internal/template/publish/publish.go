package publish

import (
	"context"
	"errors"
	"fmt"
	"os"

	"helm.sh/helm/v3/pkg/chart/loader"
	"k8s.io/client-go/rest"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/helmrepo"
	"github.com/k0rdent/kbook/internal/template/manifest"
)

// Connect reaches the cluster to publish through: its client
// configuration and the namespace of its context. Publish calls it once
// the chart is checked, so a bad chart is reported first.
type Connect func() (*rest.Config, string, error)

// Publish is kbook template publish: the chart at path is packaged and
// published through the cluster connect reaches (the namespace defaults
// to its context's) with helmrepo.Publish. A bad --interval is a
// findings.InputError before the chart is read (an empty one is
// helmrepo's default); so are a chart that does not load and a version
// already there with other content. The cluster or repository failing is
// another error.
func Publish(ctx context.Context, path string, connect Connect, o helmrepo.PublishOptions) (*helmrepo.Published, error) {
	if o.Interval != "" {
		canon, err := manifest.CanonicalInterval(o.Interval)
		if err != nil {
			return nil, &findings.InputError{Err: fmt.Errorf("--interval: %w", err)}
		}
		o.Interval = canon
	}
	archive, err := load(path)
	if err != nil {
		return nil, &findings.InputError{Err: err}
	}
	cfg, namespace, err := connect()
	if err != nil {
		return nil, err
	}
	if o.Namespace == "" {
		o.Namespace = namespace
	}
	res, err := helmrepo.Publish(ctx, cfg, archive, o)
	if errors.Is(err, helmrepo.ErrExists) {
		return nil, &findings.InputError{Err: err}
	}
	return res, err
}

// load loads the chart at path (directory or .tgz) and packages it; the
// error names the path.
func load(path string) ([]byte, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("chart %s: %w", path, errors.Unwrap(err))
	}
	ch, err := loader.Load(path)
	if err != nil {
		return nil, fmt.Errorf("load chart %s: %w", path, err)
	}
	return helmrepo.Package(ch)
}
