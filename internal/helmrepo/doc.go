// Package helmrepo is the in-process Helm repository beside the plane, and
// the chart publishing `kbook template publish` (package template/publish)
// does through it.
//
// It is kbook's in-process Helm chart repository: a plain HTTP Helm
// repository (index.yaml plus chart archives) on 127.0.0.1, backed by a
// directory, that Flux's source-controller reads like any other
// HelmRepository. Charts are added in-process (Add) or uploaded by another
// process with ChartMuseum's API (POST /api/charts, the archive as the
// body), which is what `kbook template publish` does.
package helmrepo
