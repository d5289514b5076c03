// Package runbook owns the runbook model: goldmark parser with source lines,
// front matter, in-place `--update` rewrites, `kbook check` lint.
//
// It owns the runbook model: it parses executable Markdown runbooks (and
// plain testscript .txtar files) into steps and files with the source line
// of every script line, rewrites expected-output blocks in place for `kbook
// run --update`, and lints runbooks for `kbook check`.
//
// A Markdown runbook is prose with fenced blocks. Blocks whose language is
// "testscript" are steps; blocks with a file=NAME attribute are files written
// into the script's work directory; everything else is prose.
package runbook
