// Package scaffold is `kbook init docs`: a docs repository with a publishing
// workflow.
//
// It scaffolds a docs repository for kbook init docs: kbook.yaml, a home
// page, a guide, a first runbook and the GitHub Actions workflow that runs
// the runbooks, builds every version and publishes the site to GitHub Pages.
package scaffold
