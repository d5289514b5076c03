// Package layout owns the module's layout rules: no import loop between
// feature folders, each command in the package that names it, one doc
// comment per package, and README.md's package table generated from them.
//
// It owns the rules of the module's package layout, so that the folder tree
// stays the architecture: its tests fail on an import loop between feature
// folders (no package imports one that imports it, or a package under it,
// back through a package outside its folder), on a kbook command whose code
// is not in the package its table names for it (one whose folder names the
// command), on a package named build or a file beside a package folder of
// its name, on cmd/kbook growing past wiring, on a package without exactly
// one doc comment (in doc.go under internal/ and examples/), and on
// README.md's package table differing from those doc comments. Packages,
// Table and Splice read the comments and write the table; go generate runs
// command readmetable to rewrite it.
package layout

//go:generate go run ./readmetable ../..
