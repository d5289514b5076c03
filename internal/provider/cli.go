package provider

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
)

// ContractCheck loads the providers of template validate --provider and
// returns the check it adds to each template's report (KCM009), or a
// no-op without providers.
func ContractCheck(paths []string) (func(chart string, r *findings.Report) error, error) {
	if len(paths) == 0 {
		return func(string, *findings.Report) error { return nil }, nil
	}
	set, err := Load(paths, RenderOptions{})
	if err != nil {
		return nil, err
	}
	offer, err := set.Offers()
	if err != nil {
		return nil, err
	}
	return func(chart string, r *findings.Report) error {
		fs, err := offer.CheckTemplate(chart)
		if err != nil {
			return err
		}
		r.Findings = append(r.Findings, fs...)
		findings.Sort(r.Findings)
		return nil
	}, nil
}

// WriteVariables writes the clusterctl variables the components need,
// after provider validate's text report.
func WriteVariables(w io.Writer, vars []Variable) {
	var req, opt []string
	for _, v := range vars {
		if v.HasDefault {
			opt = append(opt, fmt.Sprintf("%s (default %q)", v.Name, v.Default))
		} else {
			req = append(req, v.Name)
		}
	}
	if len(req) > 0 {
		fmt.Fprintf(w, "clusterctl variables to set: %s\n", strings.Join(req, ", "))
	}
	if len(opt) > 0 {
		fmt.Fprintf(w, "clusterctl variables with defaults: %s\n", strings.Join(opt, ", "))
	}
}

// Check is kbook provider validate: o.Target is k0rdent (or empty, the
// same) or capi, the rules o.Disable names must exist, and o.Paths must
// load; each of those is a findings.InputError. Then the set is
// validated with o. A context already done checks nothing.
func Check(ctx context.Context, o Options) (*Result, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	switch o.Target {
	case "", TargetK0rdent, TargetCAPI:
	default:
		return nil, &findings.InputError{Err: fmt.Errorf("--target %q: want k0rdent or capi", o.Target)}
	}
	if err := Registry.CheckDisable(o.Disable); err != nil {
		return nil, &findings.InputError{Err: err}
	}
	set, err := Load(o.Paths, o.Render)
	if err != nil {
		return nil, &findings.InputError{Err: err}
	}
	return Validate(set, o), nil
}
