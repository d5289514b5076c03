// Package provider is `kbook provider validate`: loaders (components, CRD
// folders, ProviderTemplate charts rendered as kcm does, metadata.yaml) and
// the CAPI contract, clusterctl, kcm and security rules.
//
// It validates a custom Cluster API provider for k0rdent (kbook provider
// validate): it loads what a provider ships (infrastructure-components.yaml,
// CRD folders, a ProviderTemplate chart rendered as kcm renders it,
// metadata.yaml) and checks it against the
// Cluster API contract, clusterctl's rules, what kcm needs of a
// ProviderTemplate and the security policy.
//
// Load reads the inputs into a Set, Validate checks a Set and returns its
// findings (package findings) with the resources it found; the rules are in
// Registry, the contract fields per role in ContractFields. The
// ProviderTemplate that installs a provider chart is package manifest's
// (internal/provider/manifest, kbook provider manifest), the live checks on
// an API server package conformance's (internal/provider/conformance), the
// chart skeleton package scaffold's (internal/provider/scaffold).
package provider
