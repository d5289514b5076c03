// Package overlay reads the overlay of a docs tree (kbook.overlay.yaml
// beside kbook.yaml or mkdocs.yml, or --overlay) and applies it to the
// pages that run their shell blocks: its rules match blocks by page,
// heading and position or by a regular expression on the first command,
// and skip them with a reason, mark them provided by kbook, give them a
// stand-in (replace a literal, run other commands), set variables or
// choose the output mode, without editing a page; its pages list makes
// pages run their shell blocks, as kbook.yaml's run.pages does, for docs
// kbook does not own; a rule that matches nothing is an error at its
// line, so that an overlay cannot rot.
package overlay
