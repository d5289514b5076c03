// Package local runs etcd and kube-apiserver as children kbook tracks
// (internal/proc), keys and data in its registry: the local backend and the
// tests' shared API server (internal/apitest) both start it.
//
// It runs a Kubernetes API server - etcd and kube-apiserver from a directory
// of binaries (package binaries) - as children that die with their process and
// are recorded in a proc.Registry, with key and data directories inside that
// registry: a killed process leaves nothing that the next sweep (proc.Sweep)
// does not reap. envtest's own k8s_test_framework_* and
// envtest-serving-certs-* temporary directories, which outlive a killed
// process with the server's private keys, are never made. The local cluster
// backend (package cluster) and the tests' shared API server (package
// apitest) both start it.
//
// The wrappers answer envtest's --help probe of each binary from the
// binary's own output, saved once in kbook's cache (help.go). A program
// whose registry wraps the binaries must call proc.RunWrapper first thing
// (see proc.Registry.Wrap: its Go mode, where setpriv is missing). TestLocalTracked in package cluster
// checks it through the local backend: the servers recorded, nothing in
// TMPDIR, nothing left after Stop.
package local
