// Package cache is the content-hash cache of passed runbooks and their
// captured output.
//
// It stores the results of passed runbooks under a content hash, so an
// unchanged runbook is not run again and its captured output (which the docs
// site renders) stays available.
//
// Layout of the cache directory:
//
//	runs/<first two hex digits>/<sha256>.json   one report.Runbook per key
//	durations.json                              last duration of each runbook path
//
// The key covers every input of a run that can change its result - the
// kbook binary, the runbook and its declared inputs, the cluster, the
// variables and programs its scripts see, its time limit; see Key.
package cache
