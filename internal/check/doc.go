// Package check is `kbook check` as a library: the runbooks checked
// without running them - the checks kbook run makes before it starts,
// runbook lint, the overlays and the links of their docs repository.
//
// It reads the runbooks as package run does (kbook.yaml's run.pages, the
// overlays first, then the pages), makes run's checks before anything
// runs, lints each runbook and its cluster needs, and checks the links of
// the docs repository the paths belong to; its Registry is every rule
// kbook check reports.
package check
