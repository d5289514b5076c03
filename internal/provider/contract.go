package provider

import (
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/version"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
)

// Contract label keys, as cluster-api reads them
// (internal/contract/version.go, GetLatestContractAndAPIVersionFromContract).
const (
	contractLabelPrefix = k0rdent.ContractPrefix
	// providerLabel is clusterctl's provider label, also the key of the
	// Chart.yaml annotation kcm reads providers from.
	providerLabel = k0rdent.ProviderLabel
)

// Contracts the Cluster API kcm v1.11.4 pins (v1.13.4) reads, newest
// first: its contract version (internal/contract.Version, v1beta2) and
// those GetCompatibleVersions keeps compatible with it (v1beta1, until
// v1beta1 is removed, tentatively April 2027). Labels of older contracts
// (v1alpha3, v1alpha4) are ignored by it.
var readContracts = []string{"v1beta2", "v1beta1"}

var apiVersionRE = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)

// contractLabel is what a CRD's contract labels say.
type contractLabel struct {
	// Contract is the contract version CAPI reads the CRD with ("" when no
	// label CAPI reads is set).
	Contract string
	// Key is the label key, cluster.x-k8s.io/<Contract>.
	Key string
	// Versions are the label's versions, split on "_".
	Versions []string
	// Version is the one CAPI uses: the highest of Versions, Kubernetes
	// version order (v1 > v1beta2 > v1beta1 > v1alpha1).
	Version string
	// Malformed lists the parts of the value that are not API versions.
	Malformed []string
}

// readContract reads the contract labels of a CRD the way CAPI does: the
// first of readContracts whose label is set and not empty wins, and the
// highest version listed in it is the API version CAPI uses.
func readContract(labels map[string]string) contractLabel {
	for _, c := range readContracts {
		v, ok := labels[contractLabelPrefix+c]
		if !ok || v == "" {
			continue
		}
		cl := contractLabel{Contract: c, Key: contractLabelPrefix + c, Versions: strings.Split(v, "_")}
		var good []string
		for _, p := range cl.Versions {
			if apiVersionRE.MatchString(p) {
				good = append(good, p)
			} else {
				cl.Malformed = append(cl.Malformed, p)
			}
		}
		if len(good) > 0 {
			slices.SortFunc(good, version.CompareKubeAwareVersionStrings)
			cl.Version = good[len(good)-1]
		}
		return cl
	}
	return contractLabel{}
}

// contractKeys lists the cluster.x-k8s.io/<apiVersion> labels of a CRD,
// of any contract version (older ones included).
func contractKeys(labels map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		if c, ok := strings.CutPrefix(k, contractLabelPrefix); ok && apiVersionRE.MatchString(c) {
			out[c] = v
		}
	}
	return out
}

// Role is what a CRD is to core Cluster API.
type Role string

// The contract roles. Core CAPI references InfraClusters (Cluster
// spec.infrastructureRef), InfraMachines (Machine spec.infrastructureRef),
// InfraMachinePools, BootstrapConfigs, ControlPlanes and the templates of
// each (ClusterClass, MachineDeployment, MachineSet). Anything else
// (identities, IP pools, VMs, remediations, host inventories) is not a
// contract resource.
const (
	RoleNone                     Role = ""
	RoleInfraCluster             Role = "InfraCluster"
	RoleInfraClusterTemplate     Role = "InfraClusterTemplate"
	RoleInfraMachine             Role = "InfraMachine"
	RoleInfraMachineTemplate     Role = "InfraMachineTemplate"
	RoleInfraMachinePool         Role = "InfraMachinePool"
	RoleInfraMachinePoolTemplate Role = "InfraMachinePoolTemplate"
	// RoleInfraMachinePoolMachine is the InfraMachine of a MachinePool
	// machine (MachinePool Machines): CAPI creates no template for it.
	RoleInfraMachinePoolMachine Role = "InfraMachinePoolMachine"
	RoleBootstrapConfig         Role = "BootstrapConfig"
	RoleBootstrapConfigTemplate Role = "BootstrapConfigTemplate"
	RoleControlPlane            Role = "ControlPlane"
	RoleControlPlaneTemplate    Role = "ControlPlaneTemplate"
)

// template reports whether the role is a template kind.
func (r Role) template() bool { return strings.HasSuffix(string(r), "Template") }

// The API groups of the CAPI provider types, which CAPI's own manager
// role already covers.
var capiGroups = []string{k0rdent.AddonsGroup, k0rdent.BootstrapGroup, k0rdent.ControlPlaneGroup, k0rdent.InfrastructureGroup}

// providerGroup tells groups whose kinds may be contract resources: the
// CAPI groups and their sub-domains, groups named like them
// (infrastructure.acme.io), or any group when the CRD carries a contract
// label.
func providerGroup(group string, labelled bool) bool {
	if labelled || strings.HasSuffix(group, k0rdent.CAPIGroup) {
		return true
	}
	for _, p := range []string{"infrastructure.", "controlplane.", "control-plane.", "bootstrap."} {
		if strings.HasPrefix(group, p) {
			return true
		}
	}
	return false
}

// roleOf classifies a CRD by its kind, as provider kinds are named by the
// contract (FooCluster, FooMachine, FooMachineTemplate, FooControlPlane,
// FooConfig in a bootstrap group...). hasTemplate tells whether the inputs
// define <Kind>Template; machineLike whether the kind's schema has
// spec.providerID or contract readiness fields. A FooMachine with none of
// these is an inventory kind (k0smotron's PooledRemoteMachine), not an
// InfraMachine.
func roleOf(group, kind string, labelled, hasTemplate, machineLike bool) Role {
	if !providerGroup(group, labelled) || kind == "Cluster" || kind == "Machine" {
		return RoleNone
	}
	bootstrap := strings.HasPrefix(group, "bootstrap.")
	switch {
	case strings.HasSuffix(kind, "ControlPlaneTemplate"):
		return RoleControlPlaneTemplate
	case strings.HasSuffix(kind, "ControlPlane"):
		return RoleControlPlane
	case bootstrap && strings.HasSuffix(kind, "ConfigTemplate"):
		return RoleBootstrapConfigTemplate
	case bootstrap && strings.HasSuffix(kind, "Config"):
		return RoleBootstrapConfig
	case bootstrap:
		return RoleNone
	case strings.HasSuffix(kind, "MachinePoolTemplate"):
		return RoleInfraMachinePoolTemplate
	case strings.HasSuffix(kind, "MachinePoolMachine"):
		return RoleInfraMachinePoolMachine
	case strings.HasSuffix(kind, "MachinePool"):
		return RoleInfraMachinePool
	case strings.HasSuffix(kind, "MachineTemplate"):
		return RoleInfraMachineTemplate
	case strings.HasSuffix(kind, "Machine") && (hasTemplate || machineLike):
		return RoleInfraMachine
	case strings.HasSuffix(kind, "ClusterTemplate"):
		return RoleInfraClusterTemplate
	case strings.HasSuffix(kind, "Cluster"):
		return RoleInfraCluster
	}
	return RoleNone
}

// crd is a CustomResourceDefinition of the inputs, read.
type crd struct {
	obj            *Object
	group, kind    string
	plural         string
	listKind       string
	scope          string
	labels         map[string]string
	contract       contractLabel
	role           Role
	versions       []*yaml.Node
	versionsPath   findings.Path
	versionIndex   map[string]int
	hasContractKey bool
}

func readCRD(o *Object) *crd {
	c := &crd{obj: o,
		group:    str(o.Root, "spec", "group"),
		kind:     str(o.Root, "spec", "names", "kind"),
		plural:   str(o.Root, "spec", "names", "plural"),
		listKind: str(o.Root, "spec", "names", "listKind"),
		scope:    str(o.Root, "spec", "scope"),
		labels:   stringMap(get(o.Root, "metadata", "labels")),
	}
	c.contract = readContract(c.labels)
	c.hasContractKey = len(contractKeys(c.labels)) > 0
	c.versionsPath = findings.Path{"spec", "versions"}
	c.versions = items(get(o.Root, "spec", "versions"))
	c.versionIndex = map[string]int{}
	for i, v := range c.versions {
		c.versionIndex[str(v, "name")] = i
	}
	return c
}

// readVersion is the version CAPI reads: the label's version when the CRD
// has it, else the storage version (for CRDs without a usable label, so
// their schema can still be checked).
func (c *crd) readVersion() (int, *yaml.Node) {
	if i, ok := c.versionIndex[c.contract.Version]; ok && c.contract.Version != "" {
		return i, c.versions[i]
	}
	if c.contract.Version != "" {
		return -1, nil
	}
	for i, v := range c.versions {
		if str(v, "storage") == "true" {
			return i, v
		}
	}
	if len(c.versions) > 0 {
		return len(c.versions) - 1, c.versions[len(c.versions)-1]
	}
	return -1, nil
}

// prop walks an OpenAPI schema along object properties and returns the
// schema node and its path below the version (schema.openAPIV3Schema.properties.spec...).
func prop(version *yaml.Node, fields ...string) (*yaml.Node, findings.Path) {
	p := findings.Path{"schema", "openAPIV3Schema"}
	n := get(version, "schema", "openAPIV3Schema")
	for _, f := range fields {
		if n == nil {
			return nil, p
		}
		next := get(n, "properties", f)
		if next == nil {
			return nil, p
		}
		n = next
		p = p.Child("properties").Child(f)
	}
	return n, p
}

// schemaType is the type of a schema node: "object", "array", "string",
// "integer", "boolean", "number", "map" (an object with
// additionalProperties), or "" when not set (x-kubernetes-int-or-string
// and preserve-unknown-fields schemas included).
func schemaType(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	t := str(n, "type")
	if t == "object" && get(n, "additionalProperties") != nil && get(n, "properties") == nil {
		return "map"
	}
	return t
}
