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
package controllers
