package provider

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
)

// clusterctlProviders are the providers clusterctl v1.13 knows by type
// (cmd/clusterctl/client/config/providers_client.go): the
// cluster-api-operator fetches their components without a fetchConfig.
// Any other provider's operator object must say where its components are.
var clusterctlProviders = map[string][]string{
	"InfrastructureProvider": {"aws", "azure", "byoh", "cloudscale-ch-cloudscale", "cloudstack", "docker", "digitalocean", "gcp",
		"harvester-harvester", "hetzner", "hivelocity-hivelocity", "huawei", "outscale", "ibmcloud", "linode-linode", "metal3", "nested",
		"nutanix", "oci", "openstack", "tinkerbell-tinkerbell", "sidero", "vcd", "vsphere", "maas", "kubevirt", "kubekey", "vcluster",
		"virtink", "coxedge", "proxmox", "k0sproject-k0smotron", "ionoscloud-ionoscloud", "vultr-vultr", "opennebula", "scaleway", "metal-stack"},
	"BootstrapProvider":    {"kubeadm", "talos", "microk8s", "kubekey-k3s", "rke2", "k0sproject-k0smotron", "canonical-kubernetes"},
	"ControlPlaneProvider": {"kubeadm", "talos", "microk8s", "nested", "kubekey-k3s", "kamaji", "rke2", "k0sproject-k0smotron", "canonical-kubernetes", "hosted-control-plane"},
	"IPAMProvider":         {"in-cluster", "nutanix", "metal3"},
	"AddonProvider":        {"eitco-cdk8s", "helm", "rancher-fleet"},
}

// operatorKinds maps a provider type prefix of cluster.x-k8s.io/provider
// to the cluster-api-operator kind installing it.
var operatorKinds = map[string]string{
	"infrastructure-":    "InfrastructureProvider",
	"bootstrap-":         "BootstrapProvider",
	"control-plane-":     "ControlPlaneProvider",
	"ipam-":              "IPAMProvider",
	"addon-":             "AddonProvider",
	"runtime-extension-": "RuntimeExtensionProvider",
}

var providerNameRE = regexp.MustCompile(`^(infrastructure|bootstrap|control-plane|ipam|addon|runtime-extension)-[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

const operatorGroup = k0rdent.OperatorGroup

// checkK0rdent runs the K0RDENT rules on each ProviderTemplate chart:
// what kcm reads from it (api/v1beta1/templates_common.go getProvidersList,
// getCAPIContracts; internal/util/validation/mgmt.go
// getIncompatibleContractsForProviderTemplates) and what it installs.
func (c *checker) checkK0rdent() {
	if c.opts.Target != TargetK0rdent {
		return
	}
	for _, ch := range c.set.Charts {
		if ch.RenderError != nil {
			continue
		}
		c.checkChart(ch)
	}
	for _, o := range c.set.Objects {
		if o.Kind == "ConfigMap" && o.Group() == "" && strings.HasSuffix(o.Name, "-resource-template") {
			ann := stringMap(get(o.Root, "metadata", "annotations"))
			if ann["projectsveltos.io/template"] != "true" {
				c.at(RuleResourceTemplate, o, findings.Path{"metadata", "annotations"}, fmt.Sprintf("ConfigMap %s is a credential resource template (named <identity>-resource-template) without the annotation projectsveltos.io/template: \"true\": Sveltos deploys its text as plain YAML instead of rendering it, so the workload cluster gets the unrendered template", o.Name),
					"annotate it projectsveltos.io/template: \"true\"")
			}
		}
	}
}

func (c *checker) chartLine(ch *Chart, p ...any) int {
	_, line := at(ch.Meta, p...)
	if line == 0 {
		return 1
	}
	return line
}

func (c *checker) checkChart(ch *Chart) {
	md := ch.Chart.Metadata
	ann := md.Annotations
	chartYAML := ch.File("Chart.yaml")
	annPath := findings.Path{"annotations"}
	raw := ann[providerLabel]
	var providers []string
	for _, p := range strings.Split(raw, ",") {
		if p = strings.TrimSpace(p); p != "" {
			providers = append(providers, p)
		}
	}
	if len(providers) == 0 {
		if isCoreCAPI(ann) {
			return // the core cluster-api template exposes contracts only
		}
		sev := findings.Error
		if !c.rendersOperatorObject(ch) {
			sev = findings.Warning // not a CAPI provider chart (projectsveltos)
		}
		c.add(findings.Finding{Rule: RuleChartProviders, Severity: sev, Object: chartID(ch), File: chartYAML, Line: c.chartLine(ch, "annotations"), Path: annPath.Child(providerLabel).String(),
			Message: fmt.Sprintf("Chart.yaml has no %s annotation: kcm fills the ProviderTemplate's status.providers from it, and ClusterTemplates needing this provider are rejected because no installed template provides it", providerLabel),
			Hint:    "annotate the chart with cluster.x-k8s.io/provider: infrastructure-<name> (comma-separated when the chart brings several providers)"})
	}
	for _, p := range providers {
		if !providerNameRE.MatchString(p) {
			c.add(findings.Finding{Rule: RuleChartProviders, Object: chartID(ch), File: chartYAML, Line: c.chartLine(ch, "annotations", providerLabel), Path: annPath.Child(providerLabel).String(),
				Message: fmt.Sprintf("%q in %s is not a provider name: kcm compares names literally with ClusterTemplates' cluster.x-k8s.io/provider, which are a type prefix (infrastructure-, bootstrap-, control-plane-, ipam-...) and a lower-case name", p, providerLabel),
				Hint:    "name it like clusterctl does: infrastructure-acme"})
		}
	}
	c.checkChartContracts(ch)
	c.checkProviderInterface(ch, providers)
	c.checkOperatorObjects(ch, providers)
	c.checkKCMRole(ch, providers)
}

// isCoreCAPI tells the core cluster-api chart: contract annotations with
// empty values.
// chartID names a chart in findings.
func chartID(ch *Chart) string { return "Chart " + ch.Chart.Metadata.Name }

// rendersOperatorObject reports whether the chart renders a
// cluster-api-operator provider object.
func (c *checker) rendersOperatorObject(ch *Chart) bool {
	for _, o := range c.set.Objects {
		if o.Chart == ch && o.Group() == operatorGroup {
			return true
		}
	}
	return false
}

// contractProviders reports whether the chart brings providers whose
// contracts kcm checks ClusterTemplates against: infrastructure,
// bootstrap and control plane providers (ClusterTemplates pin only those;
// IPAM and add-on providers need no contract annotation).
func contractProviders(ch *Chart) bool {
	for _, p := range strings.Split(ch.Chart.Metadata.Annotations[providerLabel], ",") {
		p = strings.TrimSpace(p)
		if strings.HasPrefix(p, "infrastructure-") || strings.HasPrefix(p, "bootstrap-") || strings.HasPrefix(p, "control-plane-") {
			return true
		}
	}
	return false
}

func isCoreCAPI(ann map[string]string) bool {
	n := 0
	for k, v := range ann {
		if c, ok := strings.CutPrefix(k, contractLabelPrefix); ok && apiVersionRE.MatchString(c) {
			if v != "" {
				return false
			}
			n++
		}
	}
	return n > 0
}

func (c *checker) checkChartContracts(ch *Chart) {
	ann := ch.Chart.Metadata.Annotations
	chartYAML := ch.File("Chart.yaml")
	annotated := map[string][]string{}
	var keys []string
	for k, v := range ann {
		contract, ok := strings.CutPrefix(k, contractLabelPrefix)
		if !ok || !apiVersionRE.MatchString(contract) {
			continue
		}
		keys = append(keys, contract)
		line := c.chartLine(ch, "annotations", k)
		p := findings.Path{"annotations", k}.String()
		if !slices.Contains(c.opts.CoreContracts, contract) {
			c.add(findings.Finding{Rule: RuleChartCoreContract, Object: chartID(ch), File: chartYAML, Line: line, Path: p,
				Message: fmt.Sprintf("%s: the core cluster-api ProviderTemplate does not expose contract %s (it exposes %s): kcm reports \"core CAPI contract versions does not support %s version\" and the Management does not become ready", k, contract, strings.Join(c.opts.CoreContracts, ", "), contract),
				Hint:    "annotate only contracts the core cluster-api template exposes"})
		}
		if v == "" {
			c.add(findings.Finding{Rule: RuleChartContracts, Object: chartID(ch), File: chartYAML, Line: line, Path: p,
				Message: fmt.Sprintf("%s is empty: kcm treats an empty value as the core cluster-api template's, so the provider exposes no version for contract %s and every ClusterTemplate pinning it is rejected", k, contract),
				Hint:    "set the CRD versions implementing the contract, joined by _ (v1beta1_v1beta2)"})
			continue
		}
		for _, part := range strings.Split(v, "_") {
			if !apiVersionRE.MatchString(part) {
				c.add(findings.Finding{Rule: RuleChartContracts, Object: chartID(ch), File: chartYAML, Line: line, Path: p,
					Message: fmt.Sprintf("%s=%q: %q is not an API version: kcm rejects the ProviderTemplate (\"incorrect provider contract version\")", k, v, part), Hint: "list API versions joined by _"})
				continue
			}
			annotated[contract] = append(annotated[contract], part)
		}
	}
	slices.Sort(keys)
	// Compare with the contract CRDs of the inputs.
	labelled := map[string][]string{}
	var crds []*crd
	for _, d := range c.crds {
		if d.role == RoleNone {
			continue
		}
		crds = append(crds, d)
		for contract, v := range contractKeys(d.labels) {
			if !slices.Contains(readContracts, contract) && !slices.Contains(c.opts.CoreContracts, contract) {
				continue
			}
			for _, part := range strings.Split(v, "_") {
				if apiVersionRE.MatchString(part) && !slices.Contains(labelled[contract], part) {
					labelled[contract] = append(labelled[contract], part)
				}
			}
		}
	}
	if len(crds) == 0 {
		if len(keys) == 0 && contractProviders(ch) {
			c.add(findings.Finding{Rule: RuleChartContracts, Object: chartID(ch), File: chartYAML, Line: c.chartLine(ch, "annotations"), Path: "annotations",
				Message: "Chart.yaml has no cluster.x-k8s.io/<contract> annotation: kcm's ProviderTemplate status.capiContracts stays empty and kcm checks no ClusterTemplate's contract against the provider",
				Hint:    "annotate cluster.x-k8s.io/v1beta2: <the CRD versions implementing it> (as the CRDs' contract labels)"})
		}
		return
	}
	var contracts []string
	for k := range labelled {
		contracts = append(contracts, k)
	}
	for k := range annotated {
		if !slices.Contains(contracts, k) {
			contracts = append(contracts, k)
		}
	}
	slices.Sort(contracts)
	for _, contract := range contracts {
		k := contractLabelPrefix + contract
		a, l := annotated[contract], labelled[contract]
		line := c.chartLine(ch, "annotations", k)
		if _, ok := ann[k]; !ok {
			line = c.chartLine(ch, "annotations")
		}
		if len(a) == 0 && len(l) > 0 {
			if _, ok := ann[k]; ok {
				continue // reported above
			}
			c.add(findings.Finding{Rule: RuleChartContracts, Object: chartID(ch), File: chartYAML, Line: line, Path: findings.Path{"annotations", k}.String(),
				Message: fmt.Sprintf("the CRDs implement contract %s (labels %s: %s) but Chart.yaml does not annotate it: kcm does not know the provider supports %s and rejects ClusterTemplates that pin it", contract, k, strings.Join(l, "_"), contract),
				Hint:    fmt.Sprintf("annotate %s: %s", k, strings.Join(l, "_"))})
			continue
		}
		for _, v := range a {
			if !slices.Contains(l, v) {
				c.add(findings.Finding{Rule: RuleChartContracts, Object: chartID(ch), File: chartYAML, Line: line, Path: findings.Path{"annotations", k}.String(),
					Message: fmt.Sprintf("%s lists %s, but no CRD of the provider has %s in its %s label (%s): kcm accepts ClusterTemplates pinning %s that Cluster API cannot serve", k, v, v, k, orDash(strings.Join(l, "_")), v),
					Hint:    "make the annotation list exactly the versions the CRD labels list"})
			}
		}
		for _, v := range l {
			if len(a) > 0 && !slices.Contains(a, v) {
				c.add(findings.Finding{Rule: RuleChartContracts, Object: chartID(ch), File: chartYAML, Line: line, Path: findings.Path{"annotations", k}.String(),
					Message: fmt.Sprintf("the CRDs label %s with %s, which %s in Chart.yaml does not list: kcm rejects ClusterTemplates pinning %s", k, v, k, v),
					Hint:    "make the annotation list exactly the versions the CRD labels list"})
			}
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// chartObjects returns the rendered objects of a chart of a kind.
func (c *checker) chartObjects(ch *Chart, group, kind string) []*Object {
	var out []*Object
	for _, o := range c.set.Objects {
		if o.Chart == ch && o.Group() == group && o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

func (c *checker) checkProviderInterface(ch *Chart, providers []string) {
	var infra []string
	for _, p := range providers {
		if strings.HasPrefix(p, "infrastructure-") {
			infra = append(infra, p)
		}
	}
	pis := c.chartObjects(ch, k0rdent.Group, k0rdent.KindProviderInterface)
	if len(infra) > 0 && len(pis) == 0 {
		c.add(findings.Finding{Rule: RuleProviderInterface, Object: chartID(ch), File: ch.File("Chart.yaml"), Line: 1,
			Message: fmt.Sprintf("the chart renders no ProviderInterface for %s: kcm lists infrastructure providers, and the identity kinds a Credential may reference, from ProviderInterface objects labelled cluster.x-k8s.io/provider; without one no Credential can be used with the provider", strings.Join(infra, ", ")),
			Hint:    "add templates/interface.yaml: a k0rdent.mirantis.com/v1beta1 ProviderInterface labelled cluster.x-k8s.io/provider: " + infra[0] + " listing spec.clusterIdentities"})
	}
	for _, pi := range pis {
		label := stringMap(get(pi.Root, "metadata", "labels"))[providerLabel]
		if !slices.Contains(infra, label) {
			c.at(RuleProviderInterface, pi, findings.Path{"metadata", "labels"}, fmt.Sprintf("ProviderInterface %s is labelled %s: %q, not one of the chart's infrastructure providers (%s): kcm matches the label against the provider names", pi.Name, providerLabel, label, orDash(strings.Join(infra, ", "))),
				"label it cluster.x-k8s.io/provider: infrastructure-<name>, as in Chart.yaml")
		}
		ids := items(get(pi.Root, "spec", "clusterIdentities"))
		if len(ids) == 0 {
			c.at(RuleProviderInterface, pi, findings.Path{"spec"}, fmt.Sprintf("ProviderInterface %s lists no spec.clusterIdentities: kcm's ClusterDeployment webhook rejects every Credential for the provider (\"unsupported infrastructure identity kind\")", pi.Name),
				"list the identity kinds (a Secret, or the provider's identity CRD) Credentials may reference")
		}
		crdsGiven := len(c.crds) > 0
		for i, id := range ids {
			c.checkIdentityKind(pi, findings.Path{"spec", "clusterIdentities", i}, crdsGiven)
			for j := range items(get(id, "references")) {
				c.checkIdentityKind(pi, findings.Path{"spec", "clusterIdentities", i, "references", j}, crdsGiven)
			}
		}
	}
}

func (c *checker) checkIdentityKind(pi *Object, p findings.Path, crdsGiven bool) {
	n := get(pi.Root, p...)
	group, version, kind := str(n, "group"), str(n, "version"), str(n, "kind")
	if kind == "" {
		c.at(RuleProviderInterface, pi, p, "a cluster identity has no kind", "set group, version and kind")
		return
	}
	if group == "" {
		if version != "v1" || (kind != "Secret" && kind != "ConfigMap") {
			c.at(RuleProviderInterface, pi, p, fmt.Sprintf("cluster identity %s/%s in the core group is not a Secret or ConfigMap", version, kind), "reference a core v1 Secret or the provider's identity CRD")
		}
		return
	}
	if !crdsGiven || !c.groupGiven(group) {
		return // the provider's CRDs are not among the inputs
	}
	d, ok := c.byGK[group+"/"+kind]
	if !ok {
		c.at(RuleProviderInterface, pi, p, fmt.Sprintf("cluster identity %s (group %s) is not a CRD of the inputs: Credentials referencing it fail and kcm cannot copy it to regions", kind, group), "list a kind the provider defines, or add its CRD to the inputs")
		return
	}
	if _, ok := d.versionIndex[version]; !ok {
		c.at(RuleProviderInterface, pi, p.Child("version"), fmt.Sprintf("cluster identity %s has version %s, which its CRD does not define (versions: %s)", kind, version, strings.Join(d.versionNames(), ", ")), "use a served version of the CRD")
	}
}

// groupGiven reports whether the inputs hold CRDs of the group.
func (c *checker) groupGiven(group string) bool {
	for _, d := range c.crds {
		if d.group == group {
			return true
		}
	}
	return false
}

func (c *checker) checkOperatorObjects(ch *Chart, providers []string) {
	for _, p := range providers {
		var kind, name string
		for prefix, k := range operatorKinds {
			if rest, ok := strings.CutPrefix(p, prefix); ok {
				kind, name = k, rest
			}
		}
		if kind == "" {
			continue
		}
		objs := c.chartObjects(ch, operatorGroup, kind)
		var obj *Object
		for _, o := range objs {
			if o.Name == name {
				obj = o
			}
		}
		if obj == nil {
			var names []string
			for _, o := range objs {
				names = append(names, o.Name)
			}
			c.add(findings.Finding{Rule: RuleOperatorProvider, Object: chartID(ch), File: ch.File("Chart.yaml"), Line: 1,
				Message: fmt.Sprintf("the chart renders no %s %s/%s named %s (found: %s): k0rdent installs providers through the cluster-api-operator, whose %s object named after the provider is what installs %s's components", operatorGroup, "v1alpha2", kind, name, orDash(strings.Join(names, ", ")), kind, p),
				Hint:    fmt.Sprintf("add a %s/v1alpha2 %s named %s with spec.version and spec.fetchConfig", operatorGroup, kind, name)})
			continue
		}
		if u := str(obj.Root, "spec", "fetchConfig", "url"); u != "" {
			if err := CheckFetchURL(u); err != nil {
				c.at(RuleFetchURL, obj, findings.Path{"spec", "fetchConfig", "url"}, fmt.Sprintf("%s %s: spec.fetchConfig.url %s", kind, name, err),
					"publish the components as a GitHub release (https://github.com/OWNER/REPO/releases/VERSION/infrastructure-components.yaml) or GitLab generic package, or use fetchConfig.oci or fetchConfig.selector")
			}
		}
		if slices.Contains(clusterctlProviders[kind], name) {
			continue
		}
		fc := get(obj.Root, "spec", "fetchConfig")
		if fc == nil || (str(fc, "url") == "" && str(fc, "oci") == "" && get(fc, "selector") == nil) {
			c.at(RuleOperatorProvider, obj, findings.Path{"spec", "fetchConfig"}, fmt.Sprintf("%s %s has no spec.fetchConfig (url, oci or selector), and clusterctl does not know a provider named %s: the cluster-api-operator cannot find its components", kind, name, name),
				"set spec.fetchConfig.url (a release's components YAML), .oci (an OCI artifact) or .selector (ConfigMaps with the components)")
		}
	}
}

// checkKCMRole: kcm's manager aggregates ClusterRoles labelled
// k0rdent.mirantis.com/aggregate-to-manager. kcm gets and patches the
// InfraCluster of a ClusterDeployment to remove its blocking finalizer
// (internal/controller/clusterdeployment_controller.go), and reads the
// identity objects Credentials reference to validate and copy them
// (internal/controller/credential).
func (c *checker) checkKCMRole(ch *Chart, providers []string) {
	infra := false
	for _, p := range providers {
		infra = infra || strings.HasPrefix(p, "infrastructure-")
	}
	if !infra {
		return
	}
	var roles []*Object
	for _, o := range c.chartObjects(ch, "rbac.authorization.k8s.io", "ClusterRole") {
		if stringMap(get(o.Root, "metadata", "labels"))[k0rdentAggregateLabel] == "true" {
			roles = append(roles, o)
		}
	}
	if len(roles) == 0 {
		c.add(findings.Finding{Rule: RuleKCMRole, Object: chartID(ch), File: ch.File("Chart.yaml"), Line: 1,
			Message: fmt.Sprintf("the chart renders no ClusterRole labelled %s: \"true\": kcm cannot read the provider's InfraClusters (to remove its finalizer when a ClusterDeployment is deleted) nor its identity objects (to validate and copy Credentials)", k0rdentAggregateLabel),
			Hint:    "add templates/rbac.yaml: a ClusterRole with that label granting get, list, watch, patch on the InfraCluster kinds and get, list, watch on the identity kinds"})
		return
	}
	// Every InfraCluster kind a ClusterTemplate may use needs the grant;
	// kcm's own charts grant only the kinds kcm's templates use (the AWS
	// chart leaves out ROSACluster), so an uncovered kind is an error only
	// when no InfraCluster kind of the provider is covered.
	var uncovered []*crd
	covered := 0
	for _, d := range c.crds {
		if d.role != RoleInfraCluster {
			continue
		}
		if missing := allows(roles, d.group, d.plural, "get", "list", "watch", "patch"); len(missing) > 0 {
			uncovered = append(uncovered, d)
		} else {
			covered++
		}
	}
	for _, d := range uncovered {
		sev, why := findings.Error, "kcm cannot remove its finalizer from any InfraCluster of the provider when a ClusterDeployment is deleted, and deletions hang"
		if covered > 0 {
			sev, why = findings.Warning, "ClusterTemplates whose clusters use "+d.kind+" cannot be deleted cleanly (kcm cannot remove the InfraCluster's finalizer); fine if no template uses it"
		}
		missing := allows(roles, d.group, d.plural, "get", "list", "watch", "patch")
		c.add(findings.Finding{Rule: RuleKCMRole, Severity: sev, File: roles[0].File, Line: roles[0].line(findings.Path{"rules"}), Path: "rules", Object: roles[0].ID(),
			Message: fmt.Sprintf("no ClusterRole labelled %s grants %s on %s (InfraCluster %s): %s", k0rdentAggregateLabel, strings.Join(missing, ", "), d.plural, d.kind, why),
			Hint:    fmt.Sprintf("grant get, list, watch, patch on %s.%s", d.plural, d.group)})
	}
	for _, pi := range c.chartObjects(ch, k0rdent.Group, k0rdent.KindProviderInterface) {
		for i, id := range items(get(pi.Root, "spec", "clusterIdentities")) {
			group, kind := str(id, "group"), str(id, "kind")
			if group == "" {
				continue // core Secrets: kcm's own role covers them
			}
			var plural string
			if d, ok := c.byGK[group+"/"+kind]; ok {
				plural = d.plural
			} else {
				plural = strings.TrimSuffix(calculateCRDName(group, kind), "."+group)
			}
			if missing := allows(roles, group, plural, "get", "list", "watch"); len(missing) > 0 {
				c.at(RuleKCMRole, pi, findings.Path{"spec", "clusterIdentities", i}, fmt.Sprintf("no ClusterRole labelled %s grants %s on %s (cluster identity %s): kcm cannot validate Credentials referencing it nor copy it to regional clusters", k0rdentAggregateLabel, strings.Join(missing, ", "), plural, kind),
					fmt.Sprintf("grant get, list, watch on %s.%s", plural, group))
			}
		}
	}
}

// CheckFetchURL says why clusterctl's repository client, which the
// cluster-api-operator gives spec.fetchConfig.url to, cannot read u
// (cluster-api cmd/clusterctl/client/repository: repositoryFactory,
// NewGitHubRepository, NewGitLabRepository, newLocalRepository), or nil.
func CheckFetchURL(u string) error {
	r, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("%q does not parse: %v", u, err)
	}
	switch {
	case r.Scheme == "https" && r.Host == "github.com":
		parts := strings.Split(strings.TrimPrefix(r.Path, "/"), "/")
		if len(parts) < 5 || parts[2] != "releases" {
			return fmt.Errorf("%q is not a GitHub release URL: clusterctl reads https://github.com/{owner}/{repo}/releases/{latest|version-tag}/{components.yaml}", u)
		}
	case r.Scheme == "https" && strings.HasPrefix(r.Host, "gitlab.") && strings.HasPrefix(r.EscapedPath(), "/api/v4/projects/"):
		parts := strings.Split(strings.TrimPrefix(r.EscapedPath(), "/"), "/")
		if len(parts) != 9 || parts[4] != "packages" || parts[5] != "generic" {
			return fmt.Errorf("%q is not a GitLab package URL: clusterctl reads https://{host}/api/v4/projects/{project}/packages/generic/{package}/{version}/{components.yaml}", u)
		}
	case r.Scheme == "https":
		return fmt.Errorf("%q: clusterctl reads https URLs of GitHub releases and GitLab packages only (\"Only GitHub and GitLab are supported for https schema\"), not of %s", u, r.Host)
	case r.Scheme == "file" || r.Scheme == "":
		p := r.Path
		if !strings.HasPrefix(p, "/") || len(strings.Split(strings.TrimPrefix(p, "/"), "/")) < 3 {
			return fmt.Errorf("%q: a local repository must be an absolute path {basepath}/{provider}/{version}/{components.yaml} on the operator's filesystem", u)
		}
	default:
		return fmt.Errorf("%q: clusterctl has no repository for %s:// URLs (GitHub and GitLab over https, or file://)", u, r.Scheme)
	}
	return nil
}
