// Package cluster owns the Kubernetes clusters runbooks run against, behind
// one interface and three backends, in the manner of kind's pkg/cluster:
//
//   - local: a real kube-apiserver and etcd started through
//     controller-runtime's envtest, with binaries from KUBEBUILDER_ASSETS
//     or built once from pinned Go modules (package assets). No
//     controllers run: it verifies schemas, CEL rules, server-side dry-run,
//     RBAC and status subresources, not reconciliation.
//   - kind: a kind cluster created (or reused) through the kind library; it
//     needs a container runtime (docker, podman or nerdctl).
//   - kubeconfig: an existing cluster; kbook never deletes it.
//
// A Target adapts a cluster to the runbook runner: conditions such as
// [cluster] and [k0rdent], and per runbook a Session with its own
// namespace and kubeconfig, diagnostics on failure, and cleanup of what the
// runbook created.
package cluster
