// Package site is kbook's docs-site theme: the Hugo layouts, CSS and
// JavaScript that kbook build and kbook serve embed. A docs repository's
// own site/ folder overrides any of these files by path (Hugo's lookup
// order); this folder is laid out the same way.
package site

import (
	"embed"
	"io/fs"
)

//go:embed all:layouts assets
var files embed.FS

// Theme is the theme's file tree: layouts/ and assets/.
var Theme fs.FS = files
