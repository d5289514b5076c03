package template

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/findings"
	klog "github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/policy"
	"github.com/k0rdent/kbook/internal/provider"
	"github.com/k0rdent/kbook/internal/schema"
	"github.com/k0rdent/kbook/internal/template/scaffold"
	"sigs.k8s.io/yaml"
)

// Request is kbook template validate: the charts, the options, and the
// files (or cluster) the options come from.
type Request struct {
	Charts  []string
	Options ChartOptions
	// K0rdent is the k0rdent release whose CRDs objects are checked
	// against ("" is the release kbook pins; NoRelease: none), CRDs more
	// CRD files to check them against (added to the release's, replacing
	// same-named ones); Kubeconfig and Context instead name a cluster
	// serving them (not with CRDs or an explicit K0rdent).
	K0rdent             string
	CRDs                []string
	Kubeconfig, Context string
	// CacheDir holds the release's module trees (default: kbook's cache).
	CacheDir string
	// Policies are organisation policy files; Providers the providers
	// whose contracts the templates pin (provider.ContractCheck).
	Policies  []string
	Providers []string
	// DependencyUpdate runs helm dependency update on each chart first,
	// writing its output to Log.
	DependencyUpdate bool
	Log              io.Writer
}

// ValidateAll validates every chart of r, one report each. Anything that
// keeps a chart from being checked (a flag, a file, a chart Helm cannot
// load, a cluster that does not answer) is a findings.InputError.
func ValidateAll(ctx context.Context, r Request) ([]*findings.Report, error) {
	opts := r.Options
	var err error
	kube := r.Kubeconfig != "" || r.Context != ""
	log := r.Log
	if log == nil {
		log = io.Discard
	}
	switch {
	case len(r.CRDs) > 0 && kube:
		return nil, findings.Input(errors.New("give --crds or --kubeconfig, not both"))
	case r.K0rdent != "" && kube:
		return nil, findings.Input(errors.New("give --k0rdent or --kubeconfig, not both: a cluster serves its own CRDs"))
	case r.K0rdent == NoRelease && len(r.CRDs) > 0:
		if opts.Schemas, err = schema.FromFiles(r.CRDs...); err != nil {
			return nil, findings.Input(err)
		}
	case r.K0rdent == NoRelease:
	case !kube:
		opts.Schemas, err = releaseSchemas(ctx, r.K0rdent, r.CacheDir, r.CRDs, klog.To{W: log})
		if err != nil && (r.K0rdent != "" || findings.IsInput(err) || errors.Is(err, context.Canceled)) {
			return nil, findings.Input(err)
		}
		if err != nil {
			// The default release, not asked for: its CRDs could not be
			// had (no go, no module proxy). Check against --crds alone
			// and say why in SCHEMA001.
			opts.NoRelease = err.Error()
			if len(r.CRDs) > 0 {
				if opts.Schemas, err = schema.FromFiles(r.CRDs...); err != nil {
					return nil, findings.Input(err)
				}
			}
		}
	case kube:
		c, err := cluster.Up(ctx, cluster.Options{Backend: cluster.Kubeconfig, Kubeconfig: r.Kubeconfig, Context: r.Context})
		if err != nil {
			return nil, findings.Input(err)
		}
		if opts.Schemas, err = schema.FromCluster(ctx, c.RESTConfig()); err != nil {
			return nil, findings.Input(err)
		}
	}
	var policyRules []string
	for _, p := range r.Policies {
		pol, err := policy.Load(p)
		if err != nil {
			return nil, findings.Input(err)
		}
		opts.Policies = append(opts.Policies, pol)
		for _, rule := range pol.Rules {
			policyRules = append(policyRules, rule.ID)
		}
	}
	if err := Registry.CheckDisable(opts.Disable, policyRules...); err != nil {
		return nil, findings.Input(err)
	}
	checkProvider, err := provider.ContractCheck(r.Providers)
	if err != nil {
		return nil, findings.Input(err)
	}
	var results []*findings.Report
	for _, chart := range r.Charts {
		if r.DependencyUpdate {
			if err := scaffold.DependencyUpdate(chart, log); err != nil {
				return nil, findings.Input(err)
			}
		}
		rep, err := ValidateChart(chart, opts)
		if err == nil {
			err = checkProvider(chart, rep)
		}
		if err != nil {
			return nil, findings.Input(err)
		}
		results = append(results, rep)
	}
	return results, nil
}

// WriteObjects writes rendered objects as kbook template render prints
// them: YAML documents each headed by its template, or one JSON List.
func WriteObjects(w io.Writer, format string, objs []Object) error {
	if format == "json" {
		var list []any
		for _, o := range objs {
			list = append(list, o.Unstructured.Object)
		}
		data, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": list}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(data))
		return err
	}
	for i, o := range objs {
		data, err := yaml.Marshal(o.Unstructured.Object)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		if _, err := fmt.Fprintf(w, "# Source: %s\n%s", o.Template, data); err != nil {
			return err
		}
	}
	return nil
}
