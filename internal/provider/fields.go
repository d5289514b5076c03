package provider

import (
	"fmt"

	"go.yaml.in/yaml/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

// Field is a field of a provider's object that Cluster API reads, at the
// path the contract version gives it (cluster-api internal/contract).
type Field struct {
	// Name says what the field is for CAPI: "provisioned", "providerID"...
	Name string
	Path []string
	// Status is true for fields the provider writes through the status
	// subresource.
	Status bool
	// Required is true when the contract makes the field mandatory; other
	// fields are checked only when the CRD defines them.
	Required bool
	// Sample is a value of the field's contract type, for conformance.
	Sample any
}

// ContractFields returns the fields Cluster API reads from an object of
// the role under the contract version (v1beta1 or v1beta2).
func ContractFields(role Role, contract string) []Field {
	v1 := contract == "v1beta1"
	provisioned := Field{Name: "provisioned", Path: []string{"status", "initialization", "provisioned"}, Status: true, Required: true, Sample: true}
	if v1 {
		provisioned.Path = []string{"status", "ready"}
	}
	switch role {
	case RoleInfraCluster:
		fd := Field{Name: "failureDomains", Path: []string{"status", "failureDomains"}, Status: true,
			Sample: []any{map[string]any{"name": "fd-a", "controlPlane": true}}}
		if v1 {
			fd.Sample = map[string]any{"fd-a": map[string]any{"controlPlane": true}}
		}
		return []Field{
			{Name: "controlPlaneEndpoint", Path: []string{"spec", "controlPlaneEndpoint"}, Sample: map[string]any{"host": "10.0.0.10", "port": int64(6443)}},
			provisioned, fd,
		}
	case RoleInfraMachine, RoleInfraMachinePoolMachine:
		return []Field{
			{Name: "providerID", Path: []string{"spec", "providerID"}, Required: true, Sample: "kbook://conformance/machine-0"},
			provisioned,
			{Name: "addresses", Path: []string{"status", "addresses"}, Status: true, Sample: []any{map[string]any{"type": "InternalIP", "address": "10.0.0.11"}}},
		}
	case RoleInfraMachinePool:
		return []Field{
			{Name: "providerIDList", Path: []string{"spec", "providerIDList"}, Required: true, Sample: []any{"kbook://conformance/pool-0"}},
			// The MachinePool controller reads status.ready for every contract.
			{Name: "ready", Path: []string{"status", "ready"}, Status: true, Required: true, Sample: true},
			{Name: "replicas", Path: []string{"status", "replicas"}, Status: true, Required: true, Sample: int64(1)},
		}
	case RoleBootstrapConfig:
		created := Field{Name: "dataSecretCreated", Path: []string{"status", "initialization", "dataSecretCreated"}, Status: true, Required: true, Sample: true}
		if v1 {
			created.Path = []string{"status", "ready"}
		}
		return []Field{{Name: "dataSecretName", Path: []string{"status", "dataSecretName"}, Status: true, Required: true, Sample: "conformance-bootstrap-data"}, created}
	case RoleControlPlane:
		init := Field{Name: "controlPlaneInitialized", Path: []string{"status", "initialization", "controlPlaneInitialized"}, Status: true, Required: true, Sample: true}
		if v1 {
			init.Path = []string{"status", "initialized"}
		}
		return []Field{init, {Name: "controlPlaneEndpoint", Path: []string{"spec", "controlPlaneEndpoint"}, Sample: map[string]any{"host": "10.0.0.10", "port": int64(6443)}}}
	}
	return nil
}

// ContractResource is a contract resource of a set, with its CRD.
type ContractResource struct {
	Resource
	Plural string
	CRD    *apiextensionsv1.CustomResourceDefinition
}

// ContractResources returns the contract resources of the set, with the
// role, contract and version Cluster API reads them with (v1beta2 for
// CRDs without a contract label).
func (s *Set) ContractResources() ([]ContractResource, error) {
	c := newChecker(s, Options{})
	var out []ContractResource
	for _, d := range c.crds {
		if d.role == RoleNone {
			continue
		}
		crd, err := d.obj.CRD()
		if err != nil {
			return nil, err
		}
		r := ContractResource{Resource: Resource{Kind: d.kind, Group: d.group, Role: d.role, Contract: d.contract.Contract, Version: d.contract.Version,
			File: d.obj.File, Line: d.obj.Root.Line}, Plural: d.plural, CRD: crd}
		if r.Contract == "" {
			r.Contract = readContracts[0]
		}
		if _, v := d.readVersion(); v != nil {
			r.Version = str(v, "name")
		}
		out = append(out, r)
	}
	return out, nil
}

// CRD decodes the object as a CustomResourceDefinition.
func (o *Object) CRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := o.Decode(&crd); err != nil {
		return nil, err
	}
	return &crd, nil
}

// Decode decodes the object into a Kubernetes API type (through JSON, as
// the API machinery does).
func (o *Object) Decode(into any) error {
	data, err := yaml.Marshal(o.Root)
	if err != nil {
		return fmt.Errorf("%s:%d: %w", o.File, o.Root.Line, err)
	}
	if err := sigsyaml.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%s:%d: %s: %w", o.File, o.Root.Line, o.ID(), err)
	}
	return nil
}
