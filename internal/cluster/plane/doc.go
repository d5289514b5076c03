// Package plane runs the real k0rdent management plane as local processes
// (`--k0rdent`): CRDs and webhooks from the release's modules, a supervisor,
// kcm's bootstrap.
//
// It runs the real k0rdent management plane as local processes beside the
// local API server: kcm, Flux source-controller and helm-controller, Cluster
// API core, kubeadm bootstrap and control plane, and CAPD with its in-memory
// backend (and its docker backend where a Docker engine answers: the
// network its machines need, see engine.go), each built from the Go
// modules of the chosen k0rdent release by package controllers
// (internal/cluster/plane/controllers).
//
// Start installs the release's CRDs (kcm's chart CRDs, Flux's and
// Sveltos' config/crd/bases, the Cluster API CRDs as their kustomizations
// label them), starts the controllers in order through a supervisor (package
// internal/supervisor: free
// ports, one log each, readiness, crash reports, stop by PID), registers
// their admission and conversion webhooks at 127.0.0.1, and bootstraps
// k0rdent as kcm expects: the Release and ProviderTemplates kcm ships,
// served from an in-process Helm repository as stub charts (real
// Chart.yaml, placeholder templates) that helm-controller really
// installs, and a Management whose components become ready.
//
// A plane restored from a snapshot of that state (Options.Restored, the
// key's inputs from SnapshotInputs) is rewired to this run instead - the
// CRDs' conversion webhooks, the webhook configurations, the repository's
// URL, an empty Flux storage - and its controllers must reconcile it again
// (Flux objects asked to, kcm's statuses cleared) before it is ready.
//
// Libraries never print: progress goes to a Logger.
package plane
