// Package download fetches the released envtest binaries (kube-apiserver,
// etcd, kubectl) the way controller-runtime's setup-envtest does, in its
// formats, without importing it (its module needs a newer apimachinery
// than kbook's).
//
// The index is setup-envtest's YAML (controller-tools' envtest-releases.yaml):
//
//	releases:
//	  v1.34.1:
//	    envtest-v1.34.1-linux-amd64.tar.gz:
//	      hash: <sha512 of the archive, hex>
//	      selfLink: <URL of the archive>
//
// An archive is a gzipped tar whose regular files (controller-tools puts
// them under controller-tools/envtest/) are kept by base name. The store is
// setup-envtest's layout under kbook's cache:
//
//	<cache root>/envtest/k8s/<major.minor.patch>-<goos>-<goarch>/
//	    kube-apiserver
//	    etcd
//	    kubectl
//	    .kbook-complete   written last: the archive, its URL and sha512
//
// An archive is written to a temporary directory beside its entry while its
// sha512 is computed, checked against the index, extracted there, stamped,
// and only then renamed into place: a checksum mismatch, a connection cut
// mid-body or a killed process leaves no entry, and an entry without its
// stamp is never trusted. Concurrent fetches, in this process or others,
// wait for one.
//
// Libraries never print: progress goes to a Logger.
package download
