// Package kcminstall installs k0rdent into a kind cluster as its
// QuickStart does (`helm install kcm oci://…/charts/kcm`), with nothing
// from the internet.
//
// The release's charts, packaged from its kcm Go module as kcm's own `make
// kcm-chart-release` packages them, are served by an OCI registry this
// process runs (go-containerregistry's) on 127.0.0.1 for Helm and on the
// cluster network's gateway for Flux; the controllers' images hold the
// binaries the local k0rdent plane builds from the same pinned modules and
// are loaded into the nodes under the names the charts give them; Flux,
// whose chart kcm takes from a repository this machine cannot reach, is
// installed from its controllers' own kustomize bases.
//
// What the release needs that cannot be built here is left out and said:
// see Install's Result.
package kcminstall
