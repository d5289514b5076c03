package helmrepo

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent/manifest"
)

// Connect reaches the cluster to publish through: its client
// configuration and the namespace of its context. PublishChart calls it
// once the chart is checked, so a bad chart is reported first. (A
// function, not a kubeconfig path: package cluster's plane uses helmrepo,
// so helmrepo cannot import cluster/kubeconfig without a folder loop.)
type Connect func() (*rest.Config, string, error)

// PublishChart is kbook template publish: the chart at path is packaged
// and published through the cluster connect reaches (the namespace
// defaults to its context's). A bad --interval, a chart that
// does not load and a version already there with other content are
// findings.InputErrors; the cluster or repository failing is another
// error.
func PublishChart(ctx context.Context, path string, connect Connect, o PublishOptions) (*Published, error) {
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
	cfg, namespace, err := connect()
	if err != nil {
		return nil, err
	}
	if o.Namespace == "" {
		o.Namespace = namespace
	}
	res, err := Publish(ctx, cfg, archive, o)
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
