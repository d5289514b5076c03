// Package sitetools fetches the docs site's tools that are not Go (the
// Pagefind search indexer, mermaid) from the npm registry into kbook's
// cache, at versions and hashes pinned in kbook, so that a kbook installed
// without npm builds sites with search and diagrams.
//
// A package is fetched as npm fetches it: the registry's metadata for the
// package (GET <registry>/<name>, the abbreviated form npm asks for) names
// the version's tarball and its integrity (dist.tarball, dist.integrity:
// SRI, sha512). That integrity must be the one kbook pins, and the tarball
// must hash to it; anything else is refused and nothing is cached. The
// registry is $npm_config_registry (or $NPM_CONFIG_REGISTRY), as for npm,
// else https://registry.npmjs.org/: a mirror serving npm's protocol works.
//
// The store is under kbook's cache (cache.DefaultDir):
//
//	<cache root>/sitetools/<name>@<version>/
//	    ...            the package's files, npm's leading package/ removed
//	    .kbook-complete written last: the tarball's URL and integrity
//
// A tarball is written to a temporary directory beside its entry, checked,
// extracted there, stamped and only then renamed into place: a mismatch, a
// connection cut mid-body, Ctrl-C or a killed process leaves no entry, and
// an entry without its stamp is never used. Concurrent fetches, in this
// process or others, wait for one (gobuild.Lock).
//
// A test binary fetches only from a registry on the loopback interface (a
// server the test starts), never from the real registry.
//
// Libraries never print: progress goes to a Logger.
package sitetools
