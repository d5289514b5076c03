// Package gobuild holds what the pinned builds share: the cross-process
// build lock that says who holds it, the build environment, embedded `.txt`
// modules.
//
// It builds the Go binaries kbook pins (the local API server's
// kube-apiserver, etcd and kubectl; the k0rdent controllers) from embedded
// wrapper modules into kbook's cache: a cross-process lock that tells a
// waiting process who holds it and what it is doing, the build environment,
// the extraction of .txt-suffixed embedded modules, and progress messages
// for builds that take minutes.
//
// Libraries never print: progress goes to a Logger.
package gobuild
