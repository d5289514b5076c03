// Package tinyca makes the short-lived certificate authorities kbook's
// local servers trust: an ECDSA P-256 CA in memory that issues serving and
// client certificates, PEM-encoded. Nothing it makes outlives the run that
// made it.
package tinyca
