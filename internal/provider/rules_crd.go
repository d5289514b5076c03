package provider

import (
	"fmt"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"

	"github.com/gobuffalo/flect"
	"go.yaml.in/yaml/v3"
)

// calculateCRDName is cluster-api's util/contract.CalculateCRDName: CAPI
// looks a kind's CRD up by this name, never by listing CRDs.
func calculateCRDName(group, kind string) string {
	return flect.Pluralize(strings.ToLower(kind)) + "." + group
}

const kustomizeHint = "the label is normally added at release by kustomize: config/crd/kustomization.yaml has `labels: [{pairs: {cluster.x-k8s.io/v1beta2: v1beta2}}]` (one pair per contract, the value the CRD versions joined by _); validate what you release (kustomize build config/default) or add the label"

// checkCRDs runs the CONTRACT, INFRA, BOOTSTRAP and CONTROLPLANE rules on
// every contract resource.
func (c *checker) checkCRDs() {
	v1beta1Files := map[string][]string{}
	for _, d := range c.crds {
		if d.role == RoleNone {
			continue
		}
		c.checkContractLabel(d)
		c.checkDefinition(d)
		i, v := d.readVersion()
		if v == nil {
			continue
		}
		contract := d.contract.Contract
		if contract == "" {
			contract = readContracts[0]
		} else if contract == "v1beta1" {
			v1beta1Files[d.obj.File] = append(v1beta1Files[d.obj.File], d.kind)
		}
		vp := d.versionsPath.Child(i)
		if !d.role.template() && get(v, "subresources", "status") == nil {
			c.at(RuleStatusSubresource, d.obj, vp.Child("subresources"),
				fmt.Sprintf("%s (%s) version %s has no status subresource: providers write the contract status fields (readiness, addresses, failure domains) through it, and Cluster API reads them from status", d.kind, d.role, str(v, "name")),
				"add `subresources: {status: {}}` to the version (kubebuilder: +kubebuilder:subresource:status)")
		}
		c.checkFields(d, contract, v, vp)
	}
	for file, kinds := range v1beta1Files {
		slices.Sort(kinds)
		c.add(findings.Finding{Rule: RuleV1Beta1Contract, File: file, Line: 1,
			Message: fmt.Sprintf("%d contract resources are read with the deprecated v1beta1 contract (%s): Cluster API keeps v1beta1 compatibility only temporarily (tentatively until April 2027)", len(kinds), strings.Join(kinds, ", ")),
			Hint:    "move the provider to the v1beta2 contract (status.initialization.*, failureDomains as a list) and label the CRDs cluster.x-k8s.io/v1beta2"})
	}
}

func (c *checker) checkContractLabel(d *crd) {
	o := d.obj
	lp := findings.Path{"metadata", "labels"}
	cl := d.contract
	if cl.Contract == "" {
		old := contractKeys(d.labels)
		msg := fmt.Sprintf("%s is a contract resource (%s) but has no cluster.x-k8s.io/v1beta2 or cluster.x-k8s.io/v1beta1 label: Cluster API reads the contract version from that label alone and refuses to use the kind (\"cannot find any versions matching contract versions\")", d.kind, d.role)
		if len(old) > 0 {
			var keys []string
			for k := range old {
				keys = append(keys, contractLabelPrefix+k)
			}
			slices.Sort(keys)
			msg += "; " + strings.Join(keys, ", ") + " are labels of contracts this Cluster API no longer reads"
		}
		msg += "; the other rules were checked against the v1beta2 contract"
		c.at(RuleContractLabel, o, lp, msg, kustomizeHint)
		return
	}
	kp := lp.Child(cl.Key)
	for _, m := range cl.Malformed {
		c.at(RuleContractLabelFormat, o, kp, fmt.Sprintf("label %s=%q: %q is not an API version (the value is the CRD's versions joined by _, such as v1beta1_v1beta2)", cl.Key, d.labels[cl.Key], m),
			"list the CRD versions that implement the contract, joined by _")
	}
	if cl.Version == "" {
		return
	}
	i, ok := d.versionIndex[cl.Version]
	switch {
	case !ok:
		c.at(RuleContractVersion, o, kp, fmt.Sprintf("label %s=%s: Cluster API uses the highest listed version, %s, which the CRD does not define (versions: %s)", cl.Key, d.labels[cl.Key], cl.Version, strings.Join(d.versionNames(), ", ")),
			"list only versions of spec.versions in the label")
	case str(d.versions[i], "served") != "true":
		c.at(RuleContractVersion, o, d.versionsPath.Child(i).Child("served"), fmt.Sprintf("label %s=%s: Cluster API uses %s, which the CRD does not serve", cl.Key, d.labels[cl.Key], cl.Version),
			"serve the version or take it out of the label")
	}
	for key, val := range contractKeys(d.labels) {
		if !slices.Contains(readContracts, key) {
			continue // labels of contracts Cluster API no longer reads
		}
		for _, v := range strings.Split(val, "_") {
			if apiVersionRE.MatchString(v) && v != cl.Version {
				if _, ok := d.versionIndex[v]; !ok {
					c.at(RuleContractOtherVersion, o, lp.Child(contractLabelPrefix+key), fmt.Sprintf("label %s%s=%s lists %s, which the CRD does not define (versions: %s)", contractLabelPrefix, key, val, v, strings.Join(d.versionNames(), ", ")),
						"drop versions the CRD no longer has from the label")
				}
			}
		}
	}
}

func (d *crd) versionNames() []string {
	var out []string
	for _, v := range d.versions {
		out = append(out, str(v, "name"))
	}
	return out
}

func (c *checker) checkDefinition(d *crd) {
	o := d.obj
	if d.scope != "Namespaced" {
		c.at(RuleScope, o, findings.Path{"spec", "scope"}, fmt.Sprintf("%s (%s) is %s-scoped: every resource Cluster API references must be namespaced (it lives in the Cluster's namespace)", d.kind, d.role, d.scope),
			"set spec.scope: Namespaced (kubebuilder: +kubebuilder:resource:scope=Namespaced)")
	}
	if want := calculateCRDName(d.group, d.kind); o.Name != want {
		c.at(RuleCRDName, o, findings.Path{"metadata", "name"}, fmt.Sprintf("the CRD of %s is named %s, Cluster API looks it up as %s (util/contract.CalculateCRDName: pluralised lower-case kind + group) and will not find its contract label", d.kind, o.Name, want),
			fmt.Sprintf("name the CRD %s: the plural must be %s", want, strings.TrimSuffix(want, "."+d.group)))
	}
	if d.listKind != "" && d.listKind != d.kind+"List" {
		c.at(RuleListKind, o, findings.Path{"spec", "names", "listKind"}, fmt.Sprintf("listKind is %s: the contract requires the list type of %s to be %sList", d.listKind, d.kind, d.kind),
			"name the list type "+d.kind+"List")
	}
}

// field describes one contract field: where it is and what type it has.
type field struct {
	path []string
	typ  string // schema type; "" any
}

func (f field) String() string { return strings.Join(f.path, ".") }

// checkFields runs the role's field rules on the version CAPI reads.
func (c *checker) checkFields(d *crd, contract string, v *yaml.Node, vp findings.Path) {
	o := d.obj
	v1 := contract == "v1beta1"
	require := func(rule string, f field, why, hint string) bool {
		n, p := prop(v, f.path...)
		if n == nil {
			c.at(rule, o, vp.Child(p...), fmt.Sprintf("%s (%s, %s contract) has no %s: %s", d.kind, d.role, contract, f, why), hint)
			return false
		}
		if f.typ != "" && schemaType(n) != f.typ && !(f.typ == "object" && schemaType(n) == "map") {
			c.at(rule, o, vp.Child(p...), fmt.Sprintf("%s (%s, %s contract): %s is %s, the contract wants %s", d.kind, d.role, contract, f, orNone(schemaType(n)), f.typ), hint)
			return false
		}
		return true
	}
	conditions := func() {
		n, p := prop(v, "status", "conditions")
		if n == nil {
			c.at(RuleConditions, o, vp.Child(p...), fmt.Sprintf("%s (%s) has no status.conditions: Cluster API mirrors the Ready condition into the owner's status (Cluster InfrastructureReady, Machine BootstrapConfigReady...), so users see nothing but a boolean", d.kind, d.role),
				"add status.conditions ([]metav1.Condition for v1beta2)")
		} else if schemaType(n) != "array" {
			c.at(RuleConditions, o, vp.Child(p...), fmt.Sprintf("%s (%s): status.conditions is %s, not a list of conditions", d.kind, d.role, orNone(schemaType(n))), "make status.conditions a list of conditions")
		}
	}
	templateOf := func(rule string, mandatory bool, why string) {
		t, ok := c.byGK[d.group+"/"+d.kind+"Template"]
		if !ok {
			sev := findings.Warning
			if mandatory {
				sev = findings.Error
			}
			c.add(findings.Finding{Rule: rule, Severity: sev, File: o.File, Line: o.Root.Line, Path: "spec.names.kind", Object: o.ID(),
				Message: fmt.Sprintf("%s (%s) has no %sTemplate among the inputs: %s", d.kind, d.role, d.kind, why),
				Hint:    fmt.Sprintf("define %sTemplate in group %s, with spec.template.spec holding %s's spec", d.kind, d.group, d.kind)})
			return
		}
		_ = t
	}
	provisioned := field{[]string{"status", "initialization", "provisioned"}, "boolean"}
	if v1 {
		provisioned = field{[]string{"status", "ready"}, "boolean"}
	}
	provisionedWhy := "Cluster API waits for it before going on (internal/contract Provisioned(" + contract + "))"
	provisionedHint := provisionedHintFor(contract, "provisioned")

	switch d.role {
	case RoleInfraCluster:
		cpe, p := prop(v, "spec", "controlPlaneEndpoint")
		if cpe == nil {
			sev, why := findings.Warning, "Cluster API then takes the endpoint from the control plane provider or the user"
			if c.opts.Target == TargetK0rdent {
				sev, why = findings.Error, "k0rdent's hosted control planes (k0smotron) write the endpoint they create into the InfraCluster's spec.controlPlaneEndpoint, and the patch fails without the field"
			}
			c.add(findings.Finding{Rule: RuleControlPlaneEndpointMissing, Severity: sev, File: o.File, Line: o.line(vp.Child(p...)), Path: vp.Child(p...).String(), Object: o.ID(),
				Message: fmt.Sprintf("%s (InfraCluster) has no spec.controlPlaneEndpoint: %s", d.kind, why),
				Hint:    "add spec.controlPlaneEndpoint {host: string, port: int32} (clusterv1.APIEndpoint)"})
		} else {
			c.checkEndpoint(RuleControlPlaneEndpoint, d, cpe, vp.Child(p...))
		}
		require(RuleInfraClusterProvisioned, provisioned, provisionedWhy+" and copies spec.controlPlaneEndpoint and status.failureDomains to the Cluster only then", provisionedHint)
		if fd, p := prop(v, "status", "failureDomains"); fd != nil {
			want, got := "array", schemaType(fd)
			if v1 {
				want = "map"
			}
			if got != want {
				c.at(RuleFailureDomains, o, vp.Child(p...), fmt.Sprintf("%s (InfraCluster, %s contract): status.failureDomains is %s; Cluster API reads it as a %s (internal/contract FailureDomains(%s))", d.kind, contract, orNone(got), map[string]string{"array": "list of {name, controlPlane, attributes}", "map": "map of name to {controlPlane, attributes}"}[want], contract),
					map[string]string{"array": "v1beta2: []clusterv1.FailureDomain (a list with name)", "map": "v1beta1: clusterv1beta1.FailureDomains (a map), or move the label to v1beta2"}[want])
			}
		}
		conditions()
		templateOf(RuleInfraClusterTemplate, false, "ClusterClass topologies need it (not mandatory otherwise)")
	case RoleInfraMachine, RoleInfraMachinePoolMachine:
		require(RuleProviderID, field{[]string{"spec", "providerID"}, "string"}, "Cluster API copies it to the Machine and matches it to the Node's spec.providerID; without it no Machine ever gets a Node", "add spec.providerID (string), set by the controller once the machine exists")
		require(RuleInfraMachineProvisioned, provisioned, provisionedWhy, provisionedHint)
		if a, p := prop(v, "status", "addresses"); a != nil {
			ok := schemaType(a) == "array"
			if ok {
				for _, f := range []string{"type", "address"} {
					if n := get(a, "items", "properties", f); n == nil || schemaType(n) != "string" {
						ok = false
					}
				}
			}
			if !ok {
				c.at(RuleAddresses, o, vp.Child(p...), fmt.Sprintf("%s (InfraMachine): status.addresses is not a list of {type, address} strings: Cluster API copies it into Machine status.addresses (clusterv1.MachineAddresses)", d.kind),
					"use []clusterv1.MachineAddress")
			}
		}
		conditions()
		if d.role == RoleInfraMachine {
			templateOf(RuleInfraMachineTemplate, true, "MachineDeployments, MachineSets and control planes create InfraMachines from an InfraMachineTemplate; the contract makes it mandatory")
		}
	case RoleInfraMachinePool:
		require(RuleMachinePoolProviderIDs, field{[]string{"spec", "providerIDList"}, "array"}, "the MachinePool controller copies it to MachinePool spec.providerIDList to find the pool's Nodes", "add spec.providerIDList ([]string)")
		ready := field{[]string{"status", "ready"}, "boolean"}
		why := "Cluster API's MachinePool controller reads readiness from status.ready for every contract version (controllers/external IsReady; internal/controllers/machinepool reconcileInfrastructure), whatever the book says about status.initialization.provisioned"
		require(RuleMachinePoolReady, ready, why, "add status.ready (bool) and set it with status.initialization.provisioned")
		require(RuleMachinePoolReplicas, field{[]string{"status", "replicas"}, "integer"}, "the MachinePool controller copies it to MachinePool status.replicas", "add status.replicas (int32)")
		conditions()
		templateOf(RuleInfraMachinePoolTemplate, false, "ClusterClass topologies with MachinePools need it")
	case RoleBootstrapConfig:
		require(RuleDataSecretName, field{[]string{"status", "dataSecretName"}, "string"}, "the Machine controller reads the bootstrap data Secret's name from it", "add status.dataSecretName (string)")
		created := field{[]string{"status", "initialization", "dataSecretCreated"}, "boolean"}
		if v1 {
			created = field{[]string{"status", "ready"}, "boolean"}
		}
		require(RuleDataSecretCreated, created, "Cluster API waits for it before creating the machine (internal/contract DataSecretCreated("+contract+"))", provisionedHintFor(contract, "dataSecretCreated"))
		conditions()
		if !c.hasRole(d.group, RoleBootstrapConfigTemplate) {
			templateOf(RuleBootstrapConfigTemplate, true, "MachineDeployments and MachineSets create BootstrapConfigs from a BootstrapConfigTemplate, and the group has none; the contract makes one mandatory")
		}
	case RoleControlPlane:
		init := field{[]string{"status", "initialization", "controlPlaneInitialized"}, "boolean"}
		if v1 {
			init = field{[]string{"status", "initialized"}, "boolean"}
		}
		require(RuleControlPlaneInitialized, init, "the Cluster controller waits for it before it considers the control plane reachable (internal/contract Initialized("+contract+"))", provisionedHintFor(contract, "controlPlaneInitialized"))
		if cpe, p := prop(v, "spec", "controlPlaneEndpoint"); cpe != nil {
			c.checkEndpoint(RuleControlPlaneEndpoint, d, cpe, vp.Child(p...))
		}
		if r, _ := prop(v, "spec", "replicas"); r != nil {
			c.checkScale(d, v, vp)
		}
		if sv, _ := prop(v, "spec", "version"); sv != nil {
			st, _ := prop(v, "status", "version")
			sts, _ := prop(v, "status", "versions")
			if st == nil && sts == nil {
				_, p := prop(v, "status")
				c.at(RuleControlPlaneVersion, o, vp.Child(p...), fmt.Sprintf("%s (ControlPlane) has spec.version but neither status.version nor status.versions: Cluster API (topology upgrades, MachineDeployment rollouts) cannot tell which version the control plane runs", d.kind),
					"add status.versions (preferred since Cluster API v1.14) or status.version")
			}
		} else {
			_, p := prop(v, "spec")
			c.at(RuleControlPlaneVersion, o, vp.Child(p...), fmt.Sprintf("%s (ControlPlane) has no spec.version: ClusterClass topologies cannot set or upgrade the Kubernetes version", d.kind),
				"add spec.version (string) if the control plane manages the Kubernetes version")
		}
		conditions()
		templateOf(RuleControlPlaneTemplate, false, "ClusterClass topologies need it")
	case RoleInfraClusterTemplate, RoleInfraMachineTemplate, RoleInfraMachinePoolTemplate, RoleBootstrapConfigTemplate, RoleControlPlaneTemplate:
		if kind := strings.TrimSuffix(d.kind, "Template"); c.byGK[d.group+"/"+kind] == nil {
			c.add(findings.Finding{Rule: RuleTemplatedKind, File: o.File, Line: o.Root.Line, Path: "spec.names.kind", Object: o.ID(),
				Message: fmt.Sprintf("%s (%s) templates %s, which is not among the inputs in group %s: Cluster API clones %s into a %s (the template's kind without Template), a kind the API server would not serve", d.kind, d.role, kind, d.group, d.kind, kind),
				Hint:    fmt.Sprintf("ship the %s CRD (group %s) with the provider, or name the template after the kind it creates", kind, d.group)})
		}
		require(RuleTemplateSpec, field{[]string{"spec", "template", "spec"}, "object"}, "Cluster API creates objects from spec.template.spec (and copies spec.template.metadata)", "add spec.template.spec holding the templated kind's spec")
	}
}

// hasRole reports whether group has a contract resource of the role.
func (c *checker) hasRole(group string, r Role) bool {
	for _, d := range c.crds {
		if d.group == group && d.role == r {
			return true
		}
	}
	return false
}

func provisionedHintFor(contract, f string) string {
	if contract == "v1beta1" {
		return "add status.ready (bool); with the v1beta2 contract it is status.initialization." + f
	}
	return "add status.initialization." + f + " (*bool); status.ready is read only under the v1beta1 contract label"
}

func orNone(t string) string {
	if t == "" {
		return "untyped"
	}
	return "of type " + t
}

// checkEndpoint checks an APIEndpoint {host string, port int32} schema.
func (c *checker) checkEndpoint(rule string, d *crd, cpe *yaml.Node, p findings.Path) {
	host := get(cpe, "properties", "host")
	port := get(cpe, "properties", "port")
	var bad []string
	if schemaType(cpe) != "object" {
		bad = append(bad, "it is "+orNone(schemaType(cpe))+", not an object")
	}
	if host == nil || schemaType(host) != "string" {
		bad = append(bad, "host is not a string")
	}
	if port == nil || schemaType(port) != "integer" {
		bad = append(bad, "port is not an integer")
	} else if f := str(port, "format"); f != "" && f != "int32" {
		bad = append(bad, "port has format "+f+", not int32")
	}
	if len(bad) > 0 {
		c.at(rule, d.obj, p, fmt.Sprintf("%s: spec.controlPlaneEndpoint does not have the contract's shape {host: string, port: int32}: %s; Cluster API reads it into clusterv1.APIEndpoint and fails on any other shape", d.kind, strings.Join(bad, "; ")),
			"use clusterv1.APIEndpoint's shape: host string, port int32")
	}
}

// checkScale: a ControlPlane with spec.replicas must have the scale
// subresource with CAPI's paths, and status.selector.
func (c *checker) checkScale(d *crd, v *yaml.Node, vp findings.Path) {
	want := map[string]string{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"}
	sc := get(v, "subresources", "scale")
	if sc == nil {
		c.at(RuleControlPlaneScale, d.obj, vp.Child("subresources"), fmt.Sprintf("%s (ControlPlane) has spec.replicas but no scale subresource: the contract requires scale with specReplicasPath .spec.replicas, statusReplicasPath .status.replicas, labelSelectorPath .status.selector", d.kind),
			"add +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector")
		return
	}
	for _, k := range []string{"specReplicasPath", "statusReplicasPath", "labelSelectorPath"} {
		if got := str(sc, k); got != want[k] {
			c.at(RuleControlPlaneScale, d.obj, vp.Child("subresources").Child("scale").Child(k), fmt.Sprintf("%s (ControlPlane): scale %s is %q, the contract wants %s", d.kind, k, got, want[k]), "set "+k+": "+want[k])
		}
	}
	if sel, _ := prop(v, "status", "selector"); sel == nil {
		_, p := prop(v, "status")
		c.at(RuleControlPlaneScale, d.obj, vp.Child(p...), fmt.Sprintf("%s (ControlPlane) has no status.selector for the scale subresource's labelSelectorPath", d.kind), "add status.selector (string)")
	}
}
