package conformance

import (
	"context"
	"errors"
	"fmt"
	"github.com/k0rdent/kbook/internal/log"
	"io"
	"os"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/plural"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/provider"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Request is kbook provider conformance: the provider's inputs, the
// cluster to check it on, and how.
type Request struct {
	// Paths are the provider's inputs, as provider validate takes them.
	Paths []string
	// Samples are object files to create instead of minimal objects.
	Samples []string
	// Kubeconfig and Context select an existing cluster; neither set:
	// the embedded local API server, started and stopped here.
	Kubeconfig, Context string
	// Options are Run's; Config is set here from the cluster.
	Options Options
	// Log receives the cluster's progress; OpenProcs opens the registry
	// that records the local servers, so that they die with kbook and a
	// kill -9 is reaped by the next kbook (nil: untracked).
	Log       log.Logger
	OpenProcs proc.Opener
}

// Outcome is a Run on the cluster Backend names.
type Outcome struct {
	*Result
	Backend string `json:"-"`
}

// OnCluster loads the provider and the samples, brings the cluster up, runs
// the checks and stops the cluster (even after ctx ends). Unreadable
// inputs and a cluster that does not come up are a findings.InputError;
// an interrupted run says what it cleaned up.
func OnCluster(ctx context.Context, r Request) (*Outcome, error) {
	set, err := provider.Load(r.Paths, provider.RenderOptions{})
	if err != nil {
		return nil, findings.Input(err)
	}
	o := r.Options
	if o.Samples, err = loadSamples(r.Samples); err != nil {
		return nil, findings.Input(err)
	}
	procs, closeProcs := r.OpenProcs.Open(r.Log)
	defer closeProcs()
	co := cluster.Options{Backend: cluster.Local, Kubeconfig: r.Kubeconfig, Context: r.Context, Logger: r.Log, Procs: procs}
	if r.Kubeconfig != "" || r.Context != "" {
		co.Backend = cluster.Kubeconfig
	}
	c, err := cluster.Up(ctx, co)
	if err != nil {
		return nil, findings.Input(err)
	}
	// Stop even after Ctrl-C cancelled the context.
	defer func() { _ = c.Stop(context.WithoutCancel(ctx)) }()
	o.Config = c.RESTConfig()
	res, err := Run(ctx, set, o)
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
