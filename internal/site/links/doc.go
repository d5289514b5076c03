// Package links checks the links and anchors of a docs repository before it
// is built (`kbook build`, `kbook check`).
//
// It checks the internal links of a docs repository before anything is
// built: every link between pages, to a heading anchor, to a runbook step
// (#step-N) and to other versions of the site must resolve, or the finding
// names the source file and line. kbook build fails on them; kbook check
// reports them.
package links
