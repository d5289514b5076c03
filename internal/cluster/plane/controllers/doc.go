// Package controllers builds the k0rdent controllers (kcm, Flux, Cluster
// API, CAPD) and copies the release's module trees, once, from pinned
// modules.
//
// It builds the k0rdent management plane's controllers (kcm, Flux
// source-controller and helm-controller, Cluster API core, kubeadm bootstrap
// and control plane, CAPD) from the pinned Go modules of a k0rdent release
// into kbook's cache, once, and copies the module trees the plane reads
// (CRDs, webhook manifests, charts) beside them.
//
// K0rdent names a supported release (K0rdentVersions lists them, each an
// embedded set of wrapper modules under k0rdent/<release>/), K0rdentDir
// builds what is missing under the cross-process build lock of package
// gobuild, and K0rdentAvailable says whether a release is built without
// building it. Package plane (internal/cluster/plane) runs the result.
//
// A release's wrapper modules group the controllers by Kubernetes line (kcm
// and Flux in one, Cluster API and CAPD in another): each controller is its
// own go build, but in one build list per group, so the build cache compiles
// the libraries a group shares once. To add a release: make each wrapper
// with go mod init, go get -tool of the group's main packages at the
// release's versions, the members' non-local replace directives that keep
// kcm's versions (TestK0rdentBuildsOwnVersions fails otherwise), and go mod
// tidy; store go.mod and go.sum as .txt under k0rdent/<release>/<wrapper>/,
// and add the release to k0rdentReleases and exactModules.
package controllers
