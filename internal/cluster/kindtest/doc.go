// Package kindtest holds the tests of the kind backend on a real
// container engine: clusters from kbook's node image with Ready nodes,
// storage, DNS and the pod network, Ctrl-C during create, reaping after a
// kill -9, the node image's cache, and k0rdent installed from its own
// chart (--k0rdent on kind). They skip, saying why, where no
// engine answers or the node image is not built (kbook cluster image;
// make test builds it before it runs them).
package kindtest
