// Package textpos maps byte offsets in a source file to 1-based line
// numbers and back, for the Markdown readers that report positions as
// file:line (runbook parsing, link checking).
package textpos
