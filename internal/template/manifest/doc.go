// Package manifest builds the ClusterTemplate and Flux HelmRepository that
// install a chart (`kbook template manifest`).
package manifest
