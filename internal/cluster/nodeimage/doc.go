// Package nodeimage builds kbook's kind node image with no registry: a
// Debian base (debootstrap), the Kubernetes binaries, CoreDNS, the
// local-path provisioner and a pod network built from pinned Go modules,
// assembled as OCI images (go-containerregistry) and preloaded into the
// node's containerd, in the layout kind's own create path expects; cached
// by content hash with its image ID recorded (`kbook cluster image`).
package nodeimage
