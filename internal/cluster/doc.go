// Package cluster owns cluster lifecycle: one interface, three backends
// (local envtest, kind, kubeconfig), `kbook cluster` state, status and
// assets.
//
// It owns the lifecycle of the Kubernetes clusters kbook works with, behind
// one interface and three backends, in the manner of kind's pkg/cluster:
//
//   - local: a real kube-apiserver and etcd started through
//     controller-runtime's envtest control plane, with binaries from
//     KUBEBUILDER_ASSETS or built once from pinned Go modules (package
//     binaries, internal/cluster/local/binaries). No controllers run: it verifies schemas, CEL rules,
//     server-side dry-run, RBAC and status subresources, not
//     reconciliation. The servers die with kbook, and their data and
//     certificate directories are recorded so that a later run reaps them
//     (Options.Procs, package proc).
//   - kind: a kind cluster created (or reused) through the kind library; it
//     needs a container runtime (docker, podman or nerdctl).
//   - kubeconfig: an existing cluster; kbook never deletes it.
//
// Up starts (or connects to) a cluster, Identity names one without
// starting it, and State, Serve, Reuse and Down keep a cluster running
// between commands (kbook cluster up/down). What a runbook sees of a
// cluster - conditions, a namespace per runbook, cleanup - is package
// target's (internal/cluster/target).
package cluster
