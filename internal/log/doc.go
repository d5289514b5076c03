// Package log is the one Logger every kbook library reports progress and
// warnings through, in the manner of sigs.k8s.io/kind/pkg/log: libraries
// never print; a command passes a Logger that does, a test one that
// records, and a nil Logger means NoopLogger.
//
// A Logger takes one line a call (no trailing newline) with Infof. A
// Logger that also has Warn shows warnings apart; Warnf sends a warning to
// Warn when the Logger has it, else to Infof. Either way a user reads it
// as Warning writes it, "kbook: warning: MSG": libraries warn with Warnf,
// never with Infof("warning: ...").
//
// A library whose result is output of its own (a page written, a status
// tree, a server's address) takes IOStreams beside its Logger, as kind's
// commands do, and prints nowhere else.
package log
