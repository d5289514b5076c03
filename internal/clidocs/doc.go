// Package clidocs generates the docs site's CLI reference from the
// commands themselves (a page per command) and the rule catalogues from
// the validators' registries, so neither can drift from what kbook does.
package clidocs
