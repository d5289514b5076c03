// Package sitebuild is `kbook build` as a library: a docs repository's
// versioned site, its links and templates checked before anything runs,
// its runbooks' results shown.
//
// Build loads a docs repository (or every version kbook.yaml lists, from
// git worktrees), checks links and templates before anything runs, gets
// the runbook results from a run in process (package run) or from reports,
// and renders the versioned site with Hugo (package site). kbook serve
// (package serve) takes its Defaults.
package sitebuild
