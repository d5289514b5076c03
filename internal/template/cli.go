package template

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/k0rdent/kbook/internal/cluster/kubeconfig"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/policy"
	"github.com/k0rdent/kbook/internal/provider"
	"github.com/k0rdent/kbook/internal/schema"
	"github.com/k0rdent/kbook/internal/template/scaffold"
	"sigs.k8s.io/yaml"
)

// Options are kbook template validate's: the charts, how each is
// validated (ChartOptions' flags), and the files (or cluster) the CRDs
// and policies come from.
type Options struct {
	Charts []string
	// Config, Registries, ReleaseName, Namespace and Disable are the
	// ChartOptions of every chart.
	Config                 string
	Registries             []string
	ReleaseName, Namespace string
	Disable                []string
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
	// writing Helm's output to ErrOut.
	DependencyUpdate bool
	// Logger tells of the release's CRDs being read or built.
	Logger log.Logger
	log.IOStreams
}

// Validate is kbook template validate: it validates every chart of o,
// one report each. Anything that keeps a chart from being checked (a
// flag, a file, a chart Helm cannot load, a cluster that does not answer)
// is a findings.InputError. A context already done validates nothing.
func Validate(ctx context.Context, o Options) ([]*findings.Report, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	opts := ChartOptions{Config: o.Config, Registries: o.Registries, ReleaseName: o.ReleaseName, Namespace: o.Namespace, Disable: o.Disable}
	var err error
	kube := o.Kubeconfig != "" || o.Context != ""
	switch {
	case len(o.CRDs) > 0 && kube:
		return nil, findings.Input(errors.New("give --crds or --kubeconfig, not both"))
	case o.K0rdent != "" && kube:
		return nil, findings.Input(errors.New("give --k0rdent or --kubeconfig, not both: a cluster serves its own CRDs"))
	case o.K0rdent == NoRelease && len(o.CRDs) > 0:
		if opts.Schemas, err = schema.FromFiles(o.CRDs...); err != nil {
			return nil, findings.Input(err)
		}
	case o.K0rdent == NoRelease:
	case !kube:
		opts.Schemas, err = releaseSchemas(ctx, o.K0rdent, o.CacheDir, o.CRDs, o.Logger)
		if err != nil && (o.K0rdent != "" || findings.IsInput(err) || errors.Is(err, context.Canceled)) {
			return nil, findings.Input(err)
		}
		if err != nil {
			// The default release, not asked for: its CRDs could not be
			// had (no go, no module proxy). Check against --crds alone
			// and say why in SCHEMA001.
			opts.NoRelease = err.Error()
			if len(o.CRDs) > 0 {
				if opts.Schemas, err = schema.FromFiles(o.CRDs...); err != nil {
					return nil, findings.Input(err)
				}
			}
		}
	case kube:
		l, err := kubeconfig.Connect(ctx, o.Kubeconfig, o.Context)
		if err != nil {
			return nil, findings.Input(err)
		}
		if opts.Schemas, err = schema.FromCluster(ctx, l.Config); err != nil {
			return nil, findings.Input(err)
		}
	}
	var policyRules []string
	for _, p := range o.Policies {
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
	checkProvider, err := provider.ContractCheck(o.Providers)
	if err != nil {
		return nil, findings.Input(err)
	}
	var results []*findings.Report
	errOut := o.OrDiscard().ErrOut
	for _, chart := range o.Charts {
		if o.DependencyUpdate {
			if err := scaffold.DependencyUpdate(chart, errOut); err != nil {
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
