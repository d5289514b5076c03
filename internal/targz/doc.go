// Package targz reads gzipped tar archives for the downloads kbook unpacks
// (envtest's binaries, npm packages): each regular file once, its content
// written out by the caller's naming rule.
package targz
