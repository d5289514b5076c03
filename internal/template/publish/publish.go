package publish

import (
	"context"
	"errors"
	"fmt"
	"os"

	"helm.sh/helm/v3/pkg/chart/loader"
	"k8s.io/client-go/rest"

	"github.com/k0rdent/kbook/internal/cluster/kubeconfig"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/helmrepo"
	"github.com/k0rdent/kbook/internal/template/manifest"
)

// Options are kbook template publish's.
type Options struct {
	// Chart is the chart to publish: its folder or a .tgz.
	Chart string
	// Kubeconfig and Context name the cluster (--kubeconfig: default
	// $KUBECONFIG, else ~/.kube/config; --context: default its current
	// context), read once the chart is checked, so that a bad chart is
	// reported first. The HelmRepository's namespace defaults to the
	// context's.
	Kubeconfig, Context string
	// Config, when set, is the cluster's client configuration, and the
	// kubeconfig is not read (a library caller that holds one).
	Config *rest.Config
	// PublishOptions are the HelmRepository's and the repository's
	// (helmrepo.Publish).
	helmrepo.PublishOptions
}

// Publish is kbook template publish: the chart o.Chart is packaged and
// published through the cluster o names with helmrepo.Publish. A bad
// --interval is a findings.InputError before the chart is read (an empty
// one is helmrepo's default); so are a chart that does not load and a
// version already there with other content. The kubeconfig, the cluster
// or the repository failing is another error.
func Publish(ctx context.Context, o Options) (*helmrepo.Published, error) {
	po := o.PublishOptions
	if po.Interval != "" {
		canon, err := manifest.CanonicalInterval(po.Interval)
		if err != nil {
			return nil, &findings.InputError{Err: fmt.Errorf("--interval: %w", err)}
		}
		po.Interval = canon
	}
	archive, err := load(o.Chart)
	if err != nil {
		return nil, &findings.InputError{Err: err}
	}
	cfg := o.Config
	if cfg == nil {
		kc, err := kubeconfig.Load(o.Kubeconfig, o.Context)
		if err != nil {
			return nil, err
		}
		cfg = kc.Config
		if po.Namespace == "" {
			po.Namespace = kc.Namespace
		}
	}
	res, err := helmrepo.Publish(ctx, cfg, archive, po)
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
