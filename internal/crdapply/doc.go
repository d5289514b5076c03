// Package crdapply applies CustomResourceDefinitions to an API server and
// waits until it serves them: create or update (Apply), the Established
// condition (Established, AwaitEstablished). The local k0rdent plane
// installs a release's CRDs with it, provider conformance a provider's.
package crdapply
