package status

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/output"
	"golang.org/x/term"
)

// Options are kbook status's settings.
type Options struct {
	// Kubeconfig, Context and Namespace select the cluster and the
	// namespace of the ClusterDeployment Name (package cluster/kubeconfig).
	Kubeconfig, Context, Namespace string
	Name                           string
	// Watch redraws every Interval when something changed, until ctx ends.
	Watch    bool
	Interval time.Duration
	// Format is text, json or yaml (package output; text only with Watch).
	Format string
	// Out receives the tree (a terminal's screen is cleared for each
	// redraw of Watch).
	log.IOStreams
}

// Show is kbook status: it writes the status tree of a ClusterDeployment
// to o.Out, once or, with Watch, whenever it changes until ctx ends. Bad
// options, a kubeconfig that does not load, a deployment that does not
// exist and a cluster that cannot be read are a findings.InputError; once
// ctx is done (before Show starts too), the error is ctx's.
func Show(ctx context.Context, o Options) error {
	err := show(ctx, o)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func show(ctx context.Context, o Options) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o.IOStreams = o.OrDiscard()
	if o.Watch && o.Format != "" && o.Format != "text" {
		return &findings.InputError{Err: fmt.Errorf("--watch prints text: use -o %s without --watch", o.Format)}
	}
	c, err := Connect(o.Kubeconfig, o.Context, o.Namespace)
	if err != nil {
		return &findings.InputError{Err: err}
	}
	tty := false
	if f, ok := o.Out.(interface{ Fd() uintptr }); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	show := func(tree *Tree, first bool) {
		if o.Watch && tty {
			fmt.Fprint(o.Out, "\033[H\033[2J")
		} else if o.Watch && !first {
			fmt.Fprintf(o.Out, "--- %s\n", time.Now().Format(time.RFC3339))
		}
		WriteText(o.Out, tree, time.Now())
	}
	if o.Watch {
		err = Watch(ctx, c, c.Namespace, o.Name, func() <-chan time.Time { return time.After(o.Interval) }, show)
	} else {
		var tree *Tree
		if tree, err = Collect(ctx, c, c.Namespace, o.Name); err == nil {
			return output.Write(o.Out, o.Format, tree, func(io.Writer) error {
				show(tree, true)
				return nil
			})
		}
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound):
		return &findings.InputError{Err: fmt.Errorf("ClusterDeployment %s not found in namespace %s", o.Name, c.Namespace)}
	}
	return &findings.InputError{Err: err}
}
