// Package serve is `kbook serve`: watch, rebuild, live reload, build errors
// in the browser.
//
// It is kbook serve: it watches a docs repository, rebuilds the site on
// every save (debounced, editor temp files ignored), serves it on localhost
// and tells open browsers to reload, or shows them the build error with its
// file:line. It knows nothing about Hugo: the caller's Build function makes
// the site.
package serve
