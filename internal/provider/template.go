package provider

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/k0rdent/kbook/internal/findings"
)

// Offer is what a provider offers ClusterTemplates: its names, as
// templates list them in cluster.x-k8s.io/provider, and per name the
// provider versions kcm accepts in a template's
// cluster.x-k8s.io/<provider>: <version> annotation.
type Offer struct {
	// Providers maps a provider name (infrastructure-acme) to the versions
	// it exposes; From says where they were read.
	Providers map[string][]string
	From      string
}

// Offers reads what the set's provider offers, the way kcm computes it:
// from a ProviderTemplate chart's annotations when the set has one
// (status.providers and status.capiContracts, api/v1beta1/templates_common.go),
// else from the CRDs' cluster.x-k8s.io/provider and contract labels.
func (s *Set) Offers() (*Offer, error) {
	o := &Offer{Providers: map[string][]string{}}
	for _, ch := range s.Charts {
		ann := ch.Chart.Metadata.Annotations
		var versions []string
		for k, v := range ann {
			if c, ok := strings.CutPrefix(k, contractLabelPrefix); ok && apiVersionRE.MatchString(c) {
				versions = appendVersions(versions, v)
			}
		}
		for _, p := range strings.Split(ann[providerLabel], ",") {
			if p = strings.TrimSpace(p); p != "" {
				o.Providers[p] = versions
			}
		}
		o.From = ch.File("Chart.yaml")
	}
	if len(o.Providers) > 0 {
		return o, nil
	}
	c := newChecker(s, Options{})
	for _, d := range c.crds {
		name := d.labels[providerLabel]
		if d.role == RoleNone || name == "" {
			continue
		}
		var versions []string
		for contract, v := range contractKeys(d.labels) {
			if slices.Contains(readContracts, contract) {
				versions = appendVersions(versions, v)
			}
		}
		o.Providers[name] = appendVersions(o.Providers[name], strings.Join(versions, "_"))
		o.From = "the CRD labels"
	}
	if len(o.Providers) == 0 {
		return nil, findings.Inputf(strings.Join(s.Inputs, " "), 0, "--provider: no ProviderTemplate chart with a cluster.x-k8s.io/provider annotation, nor contract CRDs labelled cluster.x-k8s.io/provider: nothing says which provider this is")
	}
	return o, nil
}

func appendVersions(list []string, joined string) []string {
	for _, v := range strings.Split(joined, "_") {
		if v != "" && !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	slices.Sort(list)
	return list
}

// CheckTemplate checks a ClusterTemplate chart's provider contract
// annotations against what the provider offers, as kcm's ClusterDeployment
// webhook does (internal/util/validation/cluster_template.go): for each
// provider of the offer that the template pins with
// cluster.x-k8s.io/<provider>: <version>, the version must be one the
// provider exposes. Findings are relative to the chart (Chart.yaml).
func (o *Offer) CheckTemplate(chartPath string) ([]findings.Finding, error) {
	ch, err := loader.Load(chartPath)
	if err != nil {
		return nil, findings.Inputf(chartPath, findings.LineIn(err.Error()), "the chart does not load: %w", err)
	}
	var meta *yaml.Node
	for _, f := range ch.Raw {
		if f.Name == "Chart.yaml" {
			var doc yaml.Node
			if yaml.Unmarshal(f.Data, &doc) == nil && len(doc.Content) > 0 {
				meta = doc.Content[0]
			}
		}
	}
	line := func(key string) int {
		if _, l := at(meta, "annotations", key); l > 0 {
			return l
		}
		return 1
	}
	ann := ch.Metadata.Annotations
	var uses []string
	for _, p := range strings.Split(ann[providerLabel], ",") {
		if p = strings.TrimSpace(p); p != "" {
			uses = append(uses, p)
		}
	}
	var out []findings.Finding
	var offered []string
	for name := range o.Providers {
		offered = append(offered, name)
	}
	slices.Sort(offered)
	matched := false
	for _, name := range offered {
		key := contractLabelPrefix + name
		pinned, ok := ann[key]
		if !slices.Contains(uses, name) && !ok {
			continue
		}
		matched = true
		if !ok {
			continue // kcm checks nothing without the pin
		}
		exposed := o.Providers[name]
		if !slices.Contains(exposed, pinned) {
			out = append(out, findings.Finding{Rule: RuleTemplateContract, Severity: severityOf(RuleTemplateContract), File: "Chart.yaml", Line: line(key),
				Path:    findings.Path{"annotations", key}.String(),
				Message: fmt.Sprintf("%s: %s pins version %s, but the provider exposes %s (from %s): kcm rejects every ClusterDeployment of this template (\"provider %s does not support %s\")", key, name, pinned, orDash(strings.Join(exposed, ", ")), o.From, name, pinned),
				Hint:    fmt.Sprintf("pin one of %s, the CRD version the template's %s objects use", orDash(strings.Join(exposed, ", ")), name)})
		}
	}
	if !matched {
		out = append(out, findings.Finding{Rule: RuleTemplateContract, Severity: findings.Warning, File: "Chart.yaml", Line: line(providerLabel), Path: findings.Path{"annotations", providerLabel}.String(),
			Message: fmt.Sprintf("the template does not use the provider given with --provider (%s): nothing to check", strings.Join(offered, ", ")),
			Hint:    "list the provider in cluster.x-k8s.io/provider, or give the template's provider"})
	}
	return out, nil
}
