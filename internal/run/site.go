package run

import (
	"context"

	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
)

// ForProject returns o for a run of the runbooks of the docs repository
// at dir (kbook build and serve): runbooks, the paths the site's load
// found them at (site.Project.RunbookPaths), and crds, its kbook.yaml
// run.crds, unless crdsGiven
// (--crds) or the cluster takes none (projectCRDs, as kbook run), so that
// each version of an --all-versions build runs with its own, and procs as
// the registry already open (nil: o's own).
func ForProject(o Options, dir string, crds, runbooks []string, crdsGiven bool, procs *proc.Registry) Options {
	o.Paths = runbooks
	if !crdsGiven {
		o.Cluster.Options.CRDs = projectCRDs(o.Cluster, dir, crds)
	}
	if procs != nil {
		o.OpenProcs = proc.Opened(procs)
	}
	return o
}

// ForSite runs the runbooks of o for a docs site, which shows failed
// runbooks rather than stopping at them: failed says one failed. Bad
// input is a findings.InputError, an interrupted run the context's cause.
func ForSite(ctx context.Context, o Options) (rep *report.Report, failed bool, err error) {
	rep, err = Run(ctx, o)
	switch {
	case err != nil:
		return nil, false, err
	case rep.Interrupted && context.Cause(ctx) != nil:
		return nil, false, context.Cause(ctx)
	case rep.Interrupted:
		return nil, false, context.Canceled
	}
	return rep, rep.Summary().Failed > 0, nil
}
