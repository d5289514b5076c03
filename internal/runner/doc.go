// Package runner runs runbooks with testscript outside `go test`:
// per-command capture, timeouts, Ctrl-C, shards, `-run`.
//
// All steps of one runbook run in order as one testscript run (one $WORK,
// one environment). The runner inserts an invisible marker command before
// every script line; the markers tell it which step is running (for live
// progress), how long each command took and where each command's output
// starts in the testscript log, so it can report every command with its
// stdout, stderr and exit code at the runbook's Markdown line.
//
// Libraries never print: progress goes to an Observer.
package runner
