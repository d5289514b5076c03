package helmrepo

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/k0rdent/kbook/internal/findings"
)

// Connect reaches the cluster to publish through: its client
// configuration and the namespace of its context. PublishChart calls it
// once the chart is checked, so a bad chart is reported first. (A
// function, not a kubeconfig path: package cluster's plane uses helmrepo,
// so helmrepo cannot import cluster/kubeconfig without a folder loop.)
type Connect func() (*rest.Config, string, error)

// PublishChart packages the chart at path and publishes it through the
// cluster connect reaches (the namespace defaults to its context's), as
// kbook template publish does (package template/publish, which checks
// o.Interval first: here it is taken as given). A chart that does not
// load and a version already there with other content are
// findings.InputErrors; the cluster or repository failing is another
// error.
func PublishChart(ctx context.Context, path string, connect Connect, o PublishOptions) (*Published, error) {
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
