// Package assets prepares what the local backend runs, once, into kbook's
// cache: `kbook cluster assets`.
//
// Prepare gives the folder of the local API server's binaries
// (KUBEBUILDER_ASSETS, else downloaded or built once, package binaries) or
// of a k0rdent release's modules and controllers (package controllers). It
// imports nothing else of kbook, so that command kbook-assets below it,
// which make test starts first, compiles in seconds and builds the longest
// path of a fresh machine's run (the API server and the controllers)
// while kbook itself compiles beside it.
package assets
