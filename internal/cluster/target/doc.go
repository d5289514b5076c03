// Package target is a cluster for the runner: conditions, a namespace per
// runbook, cleanup, diagnostics.
//
// It adapts a cluster (package cluster) to the runbook runner (package
// runner): a Target implements runner.Target.
//
// A Target starts its cluster on first use, so a run whose runbooks all
// come from the cache or need no cluster (see Needs) never starts one. It
// serves the [cluster], [local], [kind], [kubeconfig], [k0rdent] and
// [api:RESOURCE.GROUP] conditions, and gives each runbook a Session: its
// own namespace, a kubeconfig whose context defaults to it, a client for
// kbook's Kubernetes commands (package kubecmd), diagnostics when it fails,
// and cleanup of what it created, in and outside its namespace (on a
// cluster kbook did not create, only what it can attribute to the
// runbook: attribute.go). After a page that runs alone on a cluster
// kbook made, it also puts back what the page changed or deleted of the
// objects that were there before it (restore.go).
package target
