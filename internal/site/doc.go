// Package site renders the docs site kbook build and serve make: runbook
// pages with captured output and verification badges, Hugo, versions,
// aliases, search.
//
// Render builds kbook's documentation site: it turns a docs repository
// (kbook.yaml, content/, runbooks/, an optional site/ of layout overrides)
// and the recorded results of its runbooks into a Hugo project in a
// temporary directory, builds it with Hugo in-process, and installs the
// result as one version folder of a versioned static site (mike's
// versions.json, aliases, a root redirect).
//
// The theme is the embedded kbook theme (package site at the repository
// root, github.com/k0rdent/kbook/site); a user's site/ directory overrides
// it file by file through Hugo's lookup order. Nothing is written into the
// user's tree: generated pages live in the build directory.
//
// Runbook pages show what was verified: every step as a terminal block of
// the commands a person would type and the output captured from a run,
// assertion lines as checks with their outcome, and a summary badge per
// page (see Verify). A page never shows output that was not captured.
package site
