// Package build is kbook build as a library: it loads a docs repository
// (or every version kbook.yaml lists, from git worktrees), checks links
// and templates before anything runs, gets the runbook results from a run
// in process (package run) or from reports, and builds the versioned site
// with Hugo (package site). kbook build and serve call it; kbook serve's
// live loop is Serve.
package build
