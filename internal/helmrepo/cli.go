package helmrepo

import (
	"context"
	"errors"
	"fmt"

	"github.com/k0rdent/kbook/internal/cluster/kubeconfig"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent/manifest"
)

// PublishChart is kbook template publish: the chart at path is packaged
// and published through the cluster the kubeconfig and context name (the
// namespace defaults to the context's). A bad --interval, a chart that
// does not load and a version already there with other content are
// findings.InputErrors; the cluster or repository failing is another
// error.
func PublishChart(ctx context.Context, path, kubeconfigPath, context string, o PublishOptions) (*Published, error) {
	if o.Interval != "" {
		canon, err := manifest.CanonicalInterval(o.Interval)
		if err != nil {
			return nil, &findings.InputError{Err: fmt.Errorf("--interval: %w", err)}
		}
		o.Interval = canon
	}
	_, archive, err := LoadForPublish(path)
	if err != nil {
		return nil, &findings.InputError{Err: err}
	}
	kc, err := kubeconfig.Load(kubeconfigPath, context)
	if err != nil {
		return nil, err
	}
	if o.Namespace == "" {
		o.Namespace = kc.Namespace
	}
	res, err := Publish(ctx, kc.Config, archive, o)
	if errors.Is(err, ErrExists) {
		return nil, &findings.InputError{Err: err}
	}
	return res, err
}

// String says what was published where, as kbook template publish
// prints it.
func (p *Published) String() string {
	verb := "exists"
	if p.Created {
		verb = "created"
	}
	return fmt.Sprintf("published %s %s to %s (HelmRepository %s/%s %s)", p.Chart.Name, p.Chart.Version, p.URL, p.Namespace, p.Repo, verb)
}
