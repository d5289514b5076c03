// Package clidocs holds the words of kbook's commands and generates the
// docs site's CLI reference and rule catalogues from them: each command's
// description, help text and examples are a Markdown file under help/
// (Describe gives them to the commands, so --help and the reference page
// per command say the same), and the rule catalogues come from the
// validators' registries, so nothing can drift from what kbook does.
package clidocs
