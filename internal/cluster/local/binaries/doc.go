// Package binaries locates or builds the local backend's kube-apiserver,
// etcd and kubectl: KUBEBUILDER_ASSETS, or built once from pinned modules.
//
// It owns locating and building the local API server binaries
// (kube-apiserver, etcd and kubectl) that envtest runs, from
// sigs.k8s.io/controller-runtime/pkg/envtest, which reads them from the
// directory named by KUBEBUILDER_ASSETS.
//
// Where they come from is an assetsfrom.Source (kbook's --assets-from): Build, Download
// or Auto (what the cache has, else a download, else a build).
//
// Download takes setup-envtest's released archive of KubernetesVersion
// (else the newest patch of its minor) from setup-envtest's index, checked
// against the index's sha512, into setup-envtest's store layout under the
// cache root (package download):
//
//	<cache root>/envtest/k8s/<major.minor.patch>-<goos>-<goarch>/
//
// Build needs no network but the Go module proxy. The sources of a tiny
// separate Go module (kbook.local/envtest-assets, under src/) pin
// k8s.io/kubernetes and go.etcd.io/etcd/server/v3; they are embedded in
// kbook and built with the local Go toolchain on first use, then cached:
//
//	<cache root>/envtest/k8s-<KubernetesVersion>-etcd-<EtcdVersion>-<goos>-<goarch>/
//	    kube-apiserver
//	    etcd
//	    kubectl          only when wanted (see WithKubectl)
//	    .kbook-complete  stamp, written last
//
// The cache root is $KBOOK_CACHE_DIR, else kbook/ in the user cache
// directory (see cache.DefaultDir), or the one given by WithCacheDir.
//
// The embedded files carry a .txt suffix (go.mod.txt, go.sum.txt,
// cmd/*/main.go.txt): go:embed refuses a directory holding a go.mod, and the
// suffix keeps the mains out of this module's build. Build restores the real
// names in a temporary directory.
//
// To bump the pins, copy src/ to a scratch directory with the .txt suffixes
// removed, edit go.mod (k8s.io/kubernetes v1.N.P goes with every k8s.io
// staging module replaced by v0.N.P), run go mod tidy and go build ./..., copy
// go.mod and go.sum back as .txt, and update KubernetesVersion and
// EtcdVersion (a test checks they agree with go.mod.txt).
//
// Libraries never print: progress goes to a Logger.
package binaries
