// Package serve is `kbook serve`: a docs repository's site built into a
// folder of its own, rebuilt on every save, served with live reload, its
// changed runbooks run again with --run.
//
// It is kbook serve as a library: Serve loads the repository, runs its
// runbooks as kbook build does (package run), and serves the site with
// package livereload; Live is the one version it shows, rendered again by
// package site on every save, with the runbooks whose saved source has no
// result yet run in the background.
package serve
