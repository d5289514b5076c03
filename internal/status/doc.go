// Package status is `kbook status`: a ClusterDeployment's tree from template
// to machines, likely causes, upgrade progress.
//
// It shows a ClusterDeployment and everything it depends on in one tree, as
// clusterctl describe cluster does for a CAPI Cluster: ClusterDeployment →
// its ClusterTemplate and Credential → the Flux HelmRelease kcm installs the
// chart with → the CAPI Cluster → infrastructure, control plane,
// MachineDeployments and MachinePools → Machines, each with Ready, reason,
// message and age. Identical machines are grouped; failing objects carry
// their conditions and events; the likely cause of a failure is named; an
// upgrade in progress shows where it goes and how far it got.
//
// The tree follows kcm's naming (internal/controller/clusterdeployment_controller.go):
// the HelmRelease and the CAPI Cluster are named after the
// ClusterDeployment, in its namespace; CAPI labels machine objects with
// cluster.x-k8s.io/cluster-name, cluster.x-k8s.io/deployment-name and
// cluster.x-k8s.io/control-plane-name.
package status
