// Command inventory-manager runs the inventory infrastructure provider's
// controllers (controller-runtime). It reads the cluster from --kubeconfig
// or KUBECONFIG, or the in-cluster configuration.
package main
