// Package images takes a controller's binary out of its released container
// image, with go-containerregistry: the reference is resolved at the
// registry, the image for this platform pulled by the digest the registry
// gave (go-containerregistry checks the manifest against it and every
// layer against its own digest as it reads it), the image's filesystem
// flattened (whiteouts applied) and the file the image's entrypoint names
// written beside its target and renamed into place. A Record says what was
// taken from where: kbook keeps one per controller.
//
// No registry is reached unless a caller asks: the local plane builds its
// controllers from Go modules by default (package controllers).
package images
