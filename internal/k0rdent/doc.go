// Package k0rdent is the k0rdent, Cluster API and Flux vocabulary in one
// place: API groups and versions, kinds, labels and annotations, kbook's own
// annotations.
//
// It is kbook's one home for the vocabulary of k0rdent and the Cluster API
// it drives: API groups and versions, kinds, the labels and annotations kcm
// reads, provider name prefixes and kcm's namespace. Use these constants
// instead of string literals, so that a name kcm changes is changed in one
// place and every use can be found.
//
// The names follow kcm v1.11.4 (github.com/K0rdent/kcm, api/v1beta1/*.go)
// and Cluster API v1.11+ (sigs.k8s.io/cluster-api, api/core/v1beta2); each
// block says where. The package depends on the standard library and
// k8s.io/apimachinery's schema types only, so any package may import it.
//
// The objects kbook writes for kcm are built by template/manifest (a
// ClusterTemplate and its HelmRepository) and provider/manifest (a
// ProviderTemplate and its Management entry).
package k0rdent
