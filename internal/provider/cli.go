package provider

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/schema"
	"sigs.k8s.io/yaml"
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

// ManifestFiles is kbook provider manifest: the YAML of the manifest of
// chart built with o, its schemas from the CRD files crds and its config
// from the values file config (either empty: none). Whatever stops it is
// bad input (a findings.InputError): nothing is written.
func ManifestFiles(chart string, o ManifestOptions, crds []string, config string) ([]byte, error) {
	m, err := manifestFiles(chart, o, crds, config)
	if err == nil {
		var data []byte
		if data, err = m.YAML(); err == nil {
			if data, err = output.ManifestsAs(o.Format, data); err == nil {
				return data, nil
			}
		}
	}
	return nil, &findings.InputError{Err: err}
}

func manifestFiles(chart string, o ManifestOptions, crds []string, config string) (*Manifest, error) {
	if len(crds) > 0 {
		v, err := schema.FromFiles(crds...)
		if err != nil {
			return nil, err
		}
		o.Schemas = v
	}
	if config != "" {
		data, err := os.ReadFile(config)
		if err != nil {
			return nil, err
		}
		if err := yaml.Unmarshal(data, &o.Config); err != nil {
			return nil, fmt.Errorf("%s: %w", config, err)
		}
	}
	return BuildManifest(chart, o)
}

// Check is kbook provider validate: target is k0rdent or capi, the rules
// o.Disable names must exist, and the paths must load; each of those is a
// findings.InputError. Then the set is validated with o.
func Check(paths []string, target string, o Options, render RenderOptions) (*Result, error) {
	switch Target(target) {
	case TargetK0rdent, TargetCAPI:
		o.Target = Target(target)
	default:
		return nil, &findings.InputError{Err: fmt.Errorf("--target %q: want k0rdent or capi", target)}
	}
	if err := Registry.CheckDisable(o.Disable); err != nil {
		return nil, &findings.InputError{Err: err}
	}
	set, err := Load(paths, render)
	if err != nil {
		return nil, &findings.InputError{Err: err}
	}
	return Validate(set, o), nil
}
