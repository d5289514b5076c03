// Package release builds kbook's release (make release, hack/release):
// stripped, reproducible binaries (-trimpath, version and commit stamped)
// in one archive per platform, a CycloneDX SBOM of each from the binary's
// own build info, a container image holding kbook assembled with
// go-containerregistry (no Docker daemon) as an OCI archive, and
// SHA256SUMS over them all.
//
// Every file is a function of the source tree, the Go toolchain and the
// pinned modules: archive entries and image layers carry the commit's
// time, the SBOM's serial number is derived from the binary's digest, and
// nothing records the machine or the hour of the build.
package release
