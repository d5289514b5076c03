// Package controller holds the inventory example provider's reconcilers of
// InventoryCluster and InventoryMachine.
//
// It holds the inventory provider's reconcilers: an InventoryCluster becomes
// provisioned once the inventory API answers with its identity (its zones
// become the failure domains); an InventoryMachine claims a machine from the
// inventory, sets spec.providerID, addresses and readiness at the Cluster
// API v1beta2 contract's paths, and returns the machine when it is deleted.
//
// Following the contract, an InventoryMachine is acted on once it belongs
// to a Cluster (label cluster.x-k8s.io/cluster-name) whose InventoryCluster
// is provisioned and, when a Cluster API Machine owns it, once that
// Machine's bootstrap data exists. An InventoryMachine annotated
// infrastructure.inventory.example/standalone: "true" needs no owning
// Machine: that is how conformance checks and tests exercise the
// controller without Cluster API's controllers.
package controller
