// Package publish is `kbook template publish`: a chart packaged and
// published to the kbook Helm repository that serves a cluster.
//
// Publish checks the command's options (the Flux --interval, as kcm stores
// it) and publishes through package helmrepo, whose repository the plane
// and the kind backend run beside the cluster.
package publish
