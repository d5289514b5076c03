// Package controllergen builds controller-gen at the version the provider
// scaffold pins and runs its generators.
//
// It builds controller-gen, at the version kbook's provider scaffold and
// example provider pin, into kbook's cache, and runs its generators into a
// directory of their own. Tests use it to check that the deepcopy functions,
// CRDs and RBAC a provider project commits are what controller-gen generates
// from its Go types and markers.
package controllergen
