// Package layout holds no code: its test checks the module's package
// layout, that the folder tree is the architecture. No package imports one
// that imports it, or a package under it, back through a package outside
// its folder (upgrade → status → upgrade/kubeversion is such a loop).
package layout
