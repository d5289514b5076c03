// Package version tells which kbook is running, from the Go build info.
package version
