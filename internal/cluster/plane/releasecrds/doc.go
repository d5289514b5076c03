// Package releasecrds reads the CustomResourceDefinitions of a k0rdent
// release's management plane from its Go module trees, as the release's
// own build installs them: kcm's chart CRDs, Flux's and Sveltos' CRD
// folders, and Cluster API's as their kustomizations build them (contract
// labels added, conversion by webhook noted). The local plane installs
// them (internal/cluster/plane); template validate checks objects against
// them. It reads files only: no API server, no cluster packages, so
// what imports it stays light.
package releasecrds
