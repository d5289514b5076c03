// Package scaffold is `kbook provider init`: the ProviderTemplate chart
// skeleton and, with --controller, a Go provider around it.
//
// It writes the skeleton of a k0rdent ProviderTemplate chart for a custom
// Cluster API infrastructure provider (kbook provider init): Chart.yaml with
// the annotations kcm reads, the cluster-api-operator
// InfrastructureProvider, the ProviderInterface, the ClusterRoles aggregated
// to Cluster API's and kcm's managers and a credential resource template.
//
// With Options.Controller (the command's --controller) it writes a Go
// provider around the chart, which moves to chart/: a controller-runtime
// module with an InfraCluster, InfraMachine, InfraMachineTemplate and
// InfraClusterTemplate per the Cluster API v1beta2 contract, their
// reconcilers and a test of them, the CRDs, deepcopy functions and manager
// ClusterRole controller-gen generates from them (committed, so the
// project builds without it), the release's infrastructure-components.yaml
// and clusterctl metadata.yaml, a Dockerfile and a Makefile. The module requires the
// controller-runtime and Kubernetes libraries kbook's example provider is
// built with (ControllerRuntimeVersion, KubernetesVersion), and every other
// module it shares with kbook at kbook's version (so a scaffold's first
// build reuses what kbook's compiled); go.mod and go.sum are tidy.
//
// Either result passes kbook provider validate as written.
package scaffold
