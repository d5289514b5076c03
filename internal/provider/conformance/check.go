package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/plural"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/provider"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Options are kbook provider conformance's: the provider's inputs, the
// cluster to check it on, and how.
type Options struct {
	// Paths are the provider's inputs, as provider validate takes them.
	Paths []string
	// Samples are object files to create instead of minimal objects.
	Samples []string
	// Kubeconfig and Context select an existing cluster; neither set:
	// the embedded local API server, started and stopped here.
	Kubeconfig, Context string
	// Controller, Timeout, Namespace and Keep are RunSet's (RunOptions).
	Controller bool
	Timeout    time.Duration
	Namespace  string
	Keep       bool
	// Logger receives the cluster's progress and the checks'; OpenProcs
	// opens the registry that records the local servers, so that they
	// die with kbook and a kill -9 is reaped by the next kbook (nil:
	// untracked).
	Logger    log.Logger
	OpenProcs proc.Opener
}

// Outcome is a RunSet on the cluster Backend names.
type Outcome struct {
	*Result
	Backend string `json:"-"`
}

// Run is kbook provider conformance: it loads the provider and the
// samples, brings the cluster up, runs the checks (RunSet) and stops the
// cluster (even after ctx ends). Unreadable inputs and a cluster that does
// not come up are a findings.InputError; an interrupted run says what it
// cleaned up. A context already done checks nothing.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	set, err := provider.Load(o.Paths, provider.RenderOptions{})
	if err != nil {
		return nil, findings.Input(err)
	}
	ro := RunOptions{Controller: o.Controller, Timeout: o.Timeout, Namespace: o.Namespace, Keep: o.Keep, Logger: o.Logger}
	if ro.Samples, err = loadSamples(o.Samples); err != nil {
		return nil, findings.Input(err)
	}
	procs, closeProcs := o.OpenProcs.Open(o.Logger)
	defer closeProcs()
	co := cluster.Options{Backend: cluster.Local, Kubeconfig: o.Kubeconfig, Context: o.Context, Logger: o.Logger, Procs: procs}
	if o.Kubeconfig != "" || o.Context != "" {
		co.Backend = cluster.Kubeconfig
	}
	c, err := cluster.Up(ctx, co)
	if err != nil {
		return nil, findings.Input(err)
	}
	// Stop even after Ctrl-C cancelled the context.
	defer func() { _ = c.Stop(context.WithoutCancel(ctx)) }()
	ro.Config = c.RESTConfig()
	res, err := RunSet(ctx, set, ro)
	if ctx.Err() != nil {
		return nil, errors.New("interrupted: the objects kbook created were deleted")
	}
	if err != nil {
		return nil, err
	}
	return &Outcome{Result: res, Backend: c.Backend()}, nil
}

// loadSamples reads the sample objects by kind.
func loadSamples(files []string) (map[string]*unstructured.Unstructured, error) {
	samples := map[string]*unstructured.Unstructured{}
	for _, s := range files {
		data, err := os.ReadFile(s)
		if err != nil {
			return nil, err
		}
		var obj map[string]any
		if err := yaml.Unmarshal(data, &obj); err != nil || obj["kind"] == nil {
			return nil, fmt.Errorf("%s: not a Kubernetes object: %v", s, err)
		}
		u := &unstructured.Unstructured{Object: obj}
		samples[u.GetKind()] = u
	}
	return samples, nil
}

// Write writes the outcome as text (a line per check, the notes, a
// summary), json or yaml (the Result), by package output.
func Write(w io.Writer, format string, out *Outcome) error {
	return output.Write(w, format, out.Result, func(w io.Writer) error {
		for _, ch := range out.Checks {
			line := fmt.Sprintf("%-4s %s", ch.Status, ch.Name)
			if ch.Message != "" {
				line += ": " + ch.Message
			}
			fmt.Fprintln(w, line)
		}
		for _, n := range out.Notes {
			fmt.Fprintln(w, "note: "+n)
		}
		_, err := fmt.Fprintf(w, "%s, %d failed (on %s)\n", plural.Count(len(out.Checks), "check"), out.Failed(), out.Backend)
		return err
	})
}
