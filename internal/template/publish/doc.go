// Package publish is `kbook template publish`: a chart packaged and
// published to the kbook Helm repository that serves a cluster.
//
// Publish checks the command's options (the Flux --interval, as kcm stores
// it), packages the chart, reaches the cluster its kubeconfig names and
// publishes with package helmrepo (the upload and the HelmRepository),
// whose repository the plane and the kind backend run beside the cluster.
package publish
