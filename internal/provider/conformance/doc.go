// Package conformance is `kbook provider conformance`: contract fields and
// RBAC aggregation checked on a live API server.
//
// It checks a Cluster API provider against a live API server (kbook provider
// conformance): it installs the provider's CRDs, creates a minimal object of
// each contract resource from its schema, writes the contract fields (status
// through the status subresource) and reads them back at the paths Cluster
// API reads for the CRD's labelled contract, and checks with
// SubjectAccessReviews that the provider's aggregated ClusterRoles give
// Cluster API's and kcm's managers what they need.
//
// # Aggregation
//
// ClusterRole aggregation is done by kube-controller-manager, which the
// local backend does not run. kbook creates an aggregated ClusterRole per
// manager (selector: the aggregation label) and waits a few seconds for a
// controller to fill it; when none does, kbook computes the aggregation
// itself (the union of the rules of the labelled ClusterRoles, as the
// clusterrole-aggregation controller would) and says so in the report.
// The SubjectAccessReviews are answered by the API server's real RBAC
// authorizer either way.
package conformance
