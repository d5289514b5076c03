package template

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
)

// The Chart.yaml annotations kcm reads from a ClusterTemplate chart.
const (
	// annProvider lists the CAPI providers (api/v1beta1/templates_common.go,
	// getProvidersList: split on ",", trimmed, sorted, deduplicated;
	// ClusterTemplate spec.providers wins).
	annProvider = k0rdent.ProviderLabel
	// capiPrefix + provider name pins a provider's CAPI contract
	// (getCAPIContracts: for ClusterTemplates only names starting
	// infrastructure-, control-plane- or bootstrap-, and only a single
	// version; spec.providerContracts wins).
	capiPrefix = k0rdent.ContractPrefix
	// annK8sVersion is the exact Kubernetes version
	// (api/v1beta1/clustertemplate_types.go, ChartAnnotationKubernetesVersion;
	// parsed with semver.NewVersion; spec.k8sVersion wins).
	annK8sVersion = k0rdent.K8sVersionAnnotation
)

var (
	providerRE = regexp.MustCompile(`^(cluster-api|(infrastructure|control-plane|bootstrap|ipam|runtime-extension|addon)-[a-z0-9]([a-z0-9-]*[a-z0-9])?)$`)
	// contractRE is kcm's isCAPIContractSingleVersion: v1, v1beta2,
	// v1alpha4... (api/v1beta1 of kcm, contract version helpers).
	contractRE = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)
)

// contractPrefixes are the provider kinds kcm reads contract annotations
// for in ClusterTemplates.
var contractPrefixes = []string{k0rdent.InfrastructureProviderPrefix, k0rdent.ControlPlaneProviderPrefix, k0rdent.BootstrapProviderPrefix}

func hasContractPrefix(name string) bool {
	for _, p := range contractPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// versionKeys are the default values that hold the Kubernetes version a
// template deploys, in the order they are looked up (K0RDENT010).
var versionKeys = []vpath{
	{"k0s", "version"},
	{"kubernetes", "version"},
	{"k8sVersion"},
	{"kubernetesVersion"},
	{"controlPlane", "version"},
	{"controlPlane", "kubernetesVersion"},
	{"version"},
}

// checkK0rdent runs the K0RDENT rules on the Chart.yaml annotations.
func (c *checker) checkK0rdent() {
	ann := c.src.chart.Metadata.Annotations
	cy := c.src.node("Chart.yaml")
	annNode, hasAnn := mapValue(cy, "annotations")
	annLine := 1
	if hasAnn {
		annLine, _ = lineOf(cy, vpath{"annotations"})
	}
	lineFor := func(key string) int {
		if l, ok := lineOf(annNode, vpath{key}); ok && hasAnn {
			return l
		}
		return annLine
	}
	add := func(rule, key, msg string) {
		c.add(findings.Finding{Rule: rule, File: "Chart.yaml", Line: lineFor(key), Message: msg})
	}

	// Providers.
	raw, ok := ann[annProvider]
	switch {
	case !ok:
		add(ruleProviderMissing, annProvider, "no "+annProvider+" annotation: kcm records no required providers unless every ClusterTemplate using this chart sets spec.providers (which wins over the annotation); list them, e.g. "+annProvider+": infrastructure-docker, control-plane-kubeadm, bootstrap-kubeadm")
	case strings.TrimSpace(raw) == "":
		add(ruleProviderMissing, annProvider, annProvider+" is empty: kcm records no required providers unless every ClusterTemplate using this chart sets spec.providers")
	default:
		c.providersSet = true
		seen := map[string]bool{}
		for _, item := range strings.Split(raw, ",") {
			p := strings.TrimSpace(item)
			switch {
			case p == "":
				add(ruleProviderMalformed, annProvider, annProvider+" has an empty entry (\""+raw+"\")")
			case !providerRE.MatchString(p):
				add(ruleProviderMalformed, annProvider, fmt.Sprintf("%s: %q is not a CAPI provider name such as infrastructure-aws, control-plane-k0sproject-k0smotron or bootstrap-kubeadm; kcm compares it literally with the Management's available providers, so it never matches", annProvider, p))
			case seen[p]:
				add(ruleProviderMalformed, annProvider, fmt.Sprintf("%s lists %q twice", annProvider, p))
			default:
				seen[p] = true
				c.providers = append(c.providers, p)
			}
		}
		var infra []string
		for _, p := range c.providers {
			if strings.HasPrefix(p, k0rdent.InfrastructureProviderPrefix) {
				infra = append(infra, p)
			}
		}
		switch len(infra) {
		case 1:
		case 0:
			add(ruleOneInfrastructure, annProvider, annProvider+" lists no infrastructure-* provider: a ClusterTemplate deploys a cluster on exactly one infrastructure")
		default:
			add(ruleOneInfrastructure, annProvider, fmt.Sprintf("%s lists %d infrastructure providers (%s): a ClusterTemplate deploys a cluster on exactly one infrastructure, and kcm would wait for all of them", annProvider, len(infra), strings.Join(infra, ", ")))
		}
	}

	// Contracts.
	contracts := map[string]bool{}
	for _, key := range sortedKeys(ann) {
		name, ok := strings.CutPrefix(key, capiPrefix)
		if !ok || !hasContractPrefix(name) {
			continue
		}
		contracts[name] = true
		v := ann[key]
		switch {
		case strings.Contains(v, "_"):
			add(ruleContractInvalid, key, fmt.Sprintf("%s: %q is a list of contract versions: kcm accepts one contract version per provider in a ClusterTemplate (lists are for ProviderTemplates) and marks the template invalid (incorrect provider contract version); pick the one the template's objects use, e.g. v1beta2", key, v))
		case !contractRE.MatchString(v):
			add(ruleContractInvalid, key, fmt.Sprintf("%s: %q is not a CAPI contract version such as v1beta2: kcm marks the template invalid (incorrect provider contract version)", key, v))
		}
		if c.providersSet && !slices.Contains(c.providers, name) {
			add(ruleContractUnlisted, key, fmt.Sprintf("%s pins the contract of %q, which %s does not list: kcm does not check the contract of the providers the template does use", key, name, annProvider))
		}
	}
	for _, p := range c.providers {
		// kcm's built-in provider speaks no CAPI contract: the Management
		// lists it with none (internal/controller/components, reconciler.go).
		if hasContractPrefix(p) && !contracts[p] && p != k0rdent.InternalProvider {
			add(ruleContractMissing, annProvider, fmt.Sprintf("provider %s has no contract annotation (%s%s: v1beta2): kcm cannot check that the installed provider supports the contract the template's objects need", p, capiPrefix, p))
		}
	}

	// Kubernetes version.
	kv, ok := ann[annK8sVersion]
	if !ok && c.adopted() {
		return // an adopted cluster runs whatever version it runs: the template cannot say
	}
	if !ok {
		add(ruleK8sVersionMissing, annK8sVersion, "no "+annK8sVersion+" annotation: kcm records no Kubernetes version for clusters of this template (unless every ClusterTemplate sets spec.k8sVersion, which wins) and skips ServiceTemplate compatibility checks; add e.g. "+annK8sVersion+": v1.34.1")
		return
	}
	if _, err := semver.NewVersion(kv); err != nil {
		add(ruleK8sVersionInvalid, annK8sVersion, fmt.Sprintf("%s: %q is not a SemVer version: kcm marks the ClusterTemplate invalid (failed to parse kubernetes version)", annK8sVersion, kv))
		return
	}
	if !strictSemver.MatchString(strings.TrimPrefix(kv, "v")) {
		add(ruleK8sVersionInvalid, annK8sVersion, fmt.Sprintf("%s: %q is not an exact version (MAJOR.MINOR.PATCH, such as v1.34.1)", annK8sVersion, kv))
		return
	}
	for _, key := range versionKeys {
		v, ok := lookupPath(c.src.chart.Values, key).(string)
		if !ok || v == "" {
			continue
		}
		if !sameVersion(kv, v) {
			line, _ := lineOf(c.src.node("values.yaml"), key)
			c.add(findings.Finding{Rule: ruleK8sVersionMismatch, File: "Chart.yaml", Line: lineFor(annK8sVersion), Path: key.String(),
				Message: fmt.Sprintf("%s is %s but the default %s is %s (values.yaml:%d): kcm would advertise one version while clusters run another", annK8sVersion, kv, key, v, line)})
		}
		break
	}
}

// sameVersion compares two Kubernetes versions ignoring a leading v; build
// metadata (+k0s.0) must match when both have it.
func sameVersion(a, b string) bool {
	a, b = strings.TrimPrefix(a, "v"), strings.TrimPrefix(b, "v")
	ac, ab, aHas := strings.Cut(a, "+")
	bc, bb, bHas := strings.Cut(b, "+")
	if ac != bc {
		return false
	}
	return !aHas || !bHas || ab == bb
}

// lookupPath returns the value at p in a values tree, or nil.
func lookupPath(v any, p vpath) any {
	for _, s := range p {
		switch s := s.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[s]
		case int:
			l, ok := v.([]any)
			if !ok || s < 0 || s >= len(l) {
				return nil
			}
			v = l[s]
		}
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// providerGroups are the API groups of the objects of a provider kind.
var providerGroups = []struct{ prefix, group string }{
	{k0rdent.InfrastructureProviderPrefix, "infrastructure.cluster.x-k8s.io"},
	{k0rdent.ControlPlaneProviderPrefix, "controlplane.cluster.x-k8s.io"},
	{k0rdent.BootstrapProviderPrefix, "bootstrap.cluster.x-k8s.io"},
}

// checkContractVersions runs K0RDENT007 once, on the first value set that
// renders: the version a contract annotation pins is the API version of
// the provider's objects the template renders. kcm compares the pin with
// the API versions the installed provider's ProviderTemplate lists
// (cluster.x-k8s.io/<CAPI contract>: v1beta1_v1beta2, split on _:
// internal/util/validation/cluster_template.go, validateCompatibilityAttrs),
// so a pin the objects do not use checks for the wrong version.
func (c *checker) checkContractVersions(rs *renderedSet) {
	if c.contractsChecked {
		return
	}
	c.contractsChecked = true
	ann := c.src.chart.Metadata.Annotations
	cy := c.src.node("Chart.yaml")
	annNode, _ := mapValue(cy, "annotations")
	for _, pg := range providerGroups {
		var listed []string
		for _, p := range c.providers {
			if strings.HasPrefix(p, pg.prefix) {
				listed = append(listed, p)
			}
		}
		if len(listed) != 1 {
			continue // whose objects are whose is not known
		}
		key := capiPrefix + listed[0]
		pin, ok := ann[key]
		if !ok || !contractRE.MatchString(pin) {
			continue // K0RDENT004, K0RDENT006
		}
		kinds := map[string][]string{} // version → kinds
		for _, d := range rs.objs {
			gvk := d.obj.GroupVersionKind()
			if gvk.Group == pg.group && !slices.Contains(kinds[gvk.Version], gvk.Kind) {
				kinds[gvk.Version] = append(kinds[gvk.Version], gvk.Kind)
			}
		}
		if len(kinds) == 0 || kinds[pin] != nil {
			continue
		}
		var used []string
		for _, v := range sortedKeys(kinds) {
			used = append(used, fmt.Sprintf("%s (%s)", v, strings.Join(kinds[v], ", ")))
		}
		line, _ := lineOf(annNode, vpath{key})
		c.add(findings.Finding{Rule: ruleContractVersion, File: "Chart.yaml", Line: max(line, 1), Config: rs.vs.name,
			Message: fmt.Sprintf("%s pins %s, but the template's %s objects are %s: kcm checks that the installed %s lists %s among its API versions, not the version the objects need; pin %s",
				key, pin, pg.group, strings.Join(used, ", "), listed[0], pin, sortedKeys(kinds)[0])})
	}
}
