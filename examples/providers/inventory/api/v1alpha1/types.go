package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Contract labels (the CRD label Cluster API reads the contract from) are
// set with metadata markers, so the generated CRDs carry them; a provider
// built with kustomize would add them in config/crd/kustomization.yaml.

// APIEndpoint is a Kubernetes API endpoint (the contract's shape).
type APIEndpoint struct {
	// host is the hostname or IP of the API server.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Host string `json:"host,omitempty"`
	// port is the API server's port.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`
}

// ObjectRef names an object in the same namespace.
type ObjectRef struct {
	// name of the object.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
}

// FailureDomain is a zone of the inventory (the v1beta2 contract's list item).
type FailureDomain struct {
	// name of the zone.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// controlPlane tells whether control plane machines may go there.
	// +optional
	ControlPlane *bool `json:"controlPlane,omitempty"`
	// attributes of the zone.
	// +optional
	Attributes map[string]string `json:"attributes,omitempty"`
}

// InventoryIdentitySpec says how to reach the inventory API.
type InventoryIdentitySpec struct {
	// url of the inventory API, such as https://inventory.acme.internal.
	// +kubebuilder:validation:Pattern=`^https?://`
	URL string `json:"url"`
	// secretRef names the Secret (in the identity's namespace) whose key
	// "token" holds the API token. The token is never copied elsewhere.
	SecretRef ObjectRef `json:"secretRef"`
}

// InventoryIdentity holds the credentials of an inventory API: the
// identity kind k0rdent Credentials reference (see the ProviderInterface).
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=inventoryidentities,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/provider=infrastructure-inventory"
type InventoryIdentity struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              InventoryIdentitySpec `json:"spec,omitempty"`
}

// InventoryIdentityList is a list of InventoryIdentity.
// +kubebuilder:object:root=true
type InventoryIdentityList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []InventoryIdentity `json:"items"`
}

// InventoryClusterSpec is the InfraCluster spec.
type InventoryClusterSpec struct {
	// controlPlaneEndpoint is the cluster's API endpoint, set by the user
	// or by a hosted control plane (k0smotron writes it here).
	// +optional
	ControlPlaneEndpoint APIEndpoint `json:"controlPlaneEndpoint,omitempty,omitzero"`
	// identityRef names the InventoryIdentity to reach the inventory with.
	IdentityRef ObjectRef `json:"identityRef"`
}

// ClusterInitializationStatus is the contract's initialization status.
type ClusterInitializationStatus struct {
	// provisioned is true once the inventory is reachable with the identity.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// InventoryClusterStatus is the InfraCluster status.
type InventoryClusterStatus struct {
	// initialization: read by Cluster API (v1beta2 contract).
	// +optional
	Initialization ClusterInitializationStatus `json:"initialization,omitempty,omitzero"`
	// failureDomains are the inventory's zones.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=100
	FailureDomains []FailureDomain `json:"failureDomains,omitempty"`
	// conditions; Ready is mirrored into the Cluster.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// InventoryCluster is the InfraCluster of clusters whose machines come
// from the inventory.
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=inventoryclusters,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:metadata:labels="cluster.x-k8s.io/provider=infrastructure-inventory"
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1"
type InventoryCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              InventoryClusterSpec   `json:"spec,omitempty"`
	Status            InventoryClusterStatus `json:"status,omitempty"`
}

// InventoryClusterList is a list of InventoryCluster.
// +kubebuilder:object:root=true
type InventoryClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []InventoryCluster `json:"items"`
}

// InventoryClusterTemplateResource is what a template holds.
type InventoryClusterTemplateResource struct {
	// +optional
	ObjectMeta metav1.ObjectMeta    `json:"metadata,omitempty"`
	Spec       InventoryClusterSpec `json:"spec"`
}

// InventoryClusterTemplateSpec is the template's spec.
type InventoryClusterTemplateSpec struct {
	Template InventoryClusterTemplateResource `json:"template"`
}

// InventoryClusterTemplate is the InfraClusterTemplate (ClusterClass).
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=inventoryclustertemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/provider=infrastructure-inventory"
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1"
type InventoryClusterTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              InventoryClusterTemplateSpec `json:"spec,omitempty"`
}

// InventoryClusterTemplateList is a list of InventoryClusterTemplate.
// +kubebuilder:object:root=true
type InventoryClusterTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []InventoryClusterTemplate `json:"items"`
}

// InventoryMachineSpec is the InfraMachine spec.
type InventoryMachineSpec struct {
	// providerID is inventory://<machine id>, set once a machine is claimed.
	// +optional
	ProviderID string `json:"providerID,omitempty"`
	// zone to claim the machine in (default: any).
	// +optional
	Zone string `json:"zone,omitempty"`
	// minCPU is the least number of CPUs the machine must have.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MinCPU int32 `json:"minCPU,omitempty"`
}

// MachineAddress is an address of the machine (the contract's shape).
type MachineAddress struct {
	// type: Hostname, InternalIP, ExternalIP...
	Type string `json:"type"`
	// address of the machine.
	Address string `json:"address"`
}

// MachineInitializationStatus is the contract's initialization status.
type MachineInitializationStatus struct {
	// provisioned is true once a machine is claimed from the inventory.
	// +optional
	Provisioned *bool `json:"provisioned,omitempty"`
}

// InventoryMachineStatus is the InfraMachine status.
type InventoryMachineStatus struct {
	// initialization: read by Cluster API (v1beta2 contract).
	// +optional
	Initialization MachineInitializationStatus `json:"initialization,omitempty,omitzero"`
	// addresses of the machine, copied into the Machine.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	Addresses []MachineAddress `json:"addresses,omitempty"`
	// machineID is the inventory's id of the claimed machine.
	// +optional
	MachineID string `json:"machineID,omitempty"`
	// conditions; Ready is mirrored into the Machine.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// InventoryMachine is the InfraMachine: one machine claimed from the
// inventory, returned to it when the InventoryMachine is deleted.
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=inventorymachines,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ProviderID",type=string,JSONPath=`.spec.providerID`
// +kubebuilder:printcolumn:name="Provisioned",type=boolean,JSONPath=`.status.initialization.provisioned`
// +kubebuilder:metadata:labels="cluster.x-k8s.io/provider=infrastructure-inventory"
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1"
type InventoryMachine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              InventoryMachineSpec   `json:"spec,omitempty"`
	Status            InventoryMachineStatus `json:"status,omitempty"`
}

// InventoryMachineList is a list of InventoryMachine.
// +kubebuilder:object:root=true
type InventoryMachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []InventoryMachine `json:"items"`
}

// InventoryMachineTemplateResource is what a template holds.
type InventoryMachineTemplateResource struct {
	// +optional
	ObjectMeta metav1.ObjectMeta    `json:"metadata,omitempty"`
	Spec       InventoryMachineSpec `json:"spec"`
}

// InventoryMachineTemplateSpec is the template's spec.
type InventoryMachineTemplateSpec struct {
	Template InventoryMachineTemplateResource `json:"template"`
}

// InventoryMachineTemplate is the InfraMachineTemplate MachineDeployments
// clone InventoryMachines from.
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=inventorymachinetemplates,scope=Namespaced,categories=cluster-api
// +kubebuilder:storageversion
// +kubebuilder:metadata:labels="cluster.x-k8s.io/provider=infrastructure-inventory"
// +kubebuilder:metadata:labels="cluster.x-k8s.io/v1beta2=v1alpha1"
type InventoryMachineTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              InventoryMachineTemplateSpec `json:"spec,omitempty"`
}

// InventoryMachineTemplateList is a list of InventoryMachineTemplate.
// +kubebuilder:object:root=true
type InventoryMachineTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []InventoryMachineTemplate `json:"items"`
}

func init() {
	SchemeBuilder.Register(&InventoryIdentity{}, &InventoryIdentityList{},
		&InventoryCluster{}, &InventoryClusterList{}, &InventoryClusterTemplate{}, &InventoryClusterTemplateList{},
		&InventoryMachine{}, &InventoryMachineList{}, &InventoryMachineTemplate{}, &InventoryMachineTemplateList{})
}
