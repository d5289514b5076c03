// Package livereload is a folder served on localhost that rebuilds and
// reloads: watch, rebuild, live reload, build errors in the browser.
//
// It watches a source tree, calls the caller's Build function on every
// save (debounced, editor temp files ignored), serves the built folder on
// localhost and tells open browsers to reload, or shows them the build
// error with its file:line. It knows nothing about Hugo or kbook's docs:
// kbook serve (package serve) gives it the site's build.
package livereload
