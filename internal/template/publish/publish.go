package publish

import (
	"context"
	"fmt"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/helmrepo"
	"github.com/k0rdent/kbook/internal/template/manifest"
)

// Publish is kbook template publish: the chart at path is packaged and
// published through the cluster connect reaches (helmrepo.PublishChart).
// A bad --interval is a findings.InputError before the chart is read.
func Publish(ctx context.Context, path string, connect helmrepo.Connect, o helmrepo.PublishOptions) (*helmrepo.Published, error) {
	if o.Interval != "" {
		canon, err := manifest.CanonicalInterval(o.Interval)
		if err != nil {
			return nil, &findings.InputError{Err: fmt.Errorf("--interval: %w", err)}
		}
		o.Interval = canon
	}
	return helmrepo.PublishChart(ctx, path, connect, o)
}
