// Package apitest gives tests a real Kubernetes API server
// (internal/cluster/local), once per test binary.
//
// It gives tests a real Kubernetes API server: kube-apiserver and etcd
// (package local), once per test binary, on first use. Tests skip, with
// the reason, under -short and where the binaries are not available (it
// never builds them: see package binaries), and fail when the server does not
// start.
//
// The servers are kbook's own kind of children: they die with the test
// binary even when go test kills it at its timeout, and their key and data
// directories are recorded in kbook's process registry (<cache
// dir>/procs), which the next test binary or kbook command sweeps. The
// test binary wraps them (see proc.Registry.Wrap): importing apitest makes
// it do so, in an init function.
package apitest
