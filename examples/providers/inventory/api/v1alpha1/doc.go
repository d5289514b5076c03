// Package v1alpha1 is the inventory example provider's API: InventoryCluster
// and InventoryMachine, Cluster API v1beta2 contract.
//
// It is the API of the inventory infrastructure provider: clusters and
// machines whose machines come from a machine-inventory HTTP API (the
// stand-in for an organisation's proprietary system). It implements the
// Cluster API v1beta2 contract: the CRDs carry the label
// cluster.x-k8s.io/v1beta2: v1alpha1.
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.inventory.example
package v1alpha1
