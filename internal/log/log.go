package log

import (
	"fmt"
	"io"
)

// Logger receives a library's progress messages, one line each, without a
// trailing newline.
type Logger interface {
	Infof(format string, args ...any)
}

// Warner is a Logger that shows warnings apart from progress.
type Warner interface {
	Logger
	Warn(msg string)
}

// NoopLogger drops every message.
type NoopLogger struct{}

// Infof drops the message.
func (NoopLogger) Infof(string, ...any) {}

// Warn drops the warning.
func (NoopLogger) Warn(string) {}

// Or returns l, or NoopLogger when l is nil, so a library can log without
// checking.
func Or(l Logger) Logger {
	if l == nil {
		return NoopLogger{}
	}
	return l
}

// Warning is a warning as every command shows it, whichever Logger
// prints it: "kbook: warning: MSG" (kbook run's console as well).
func Warning(msg string) string { return "kbook: warning: " + msg }

// Warnf sends a warning to l: to its Warn if it is a Warner, else to Infof
// as Warning shows it. A nil l drops it.
func Warnf(l Logger, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	switch w := l.(type) {
	case nil:
	case Warner:
		w.Warn(msg)
	default:
		l.Infof("%s", Warning(msg))
	}
}

// To is a Logger that prints each message as a line to W, and a warning
// as "kbook: warning: MSG": what a command passes the libraries it calls.
type To struct{ W io.Writer }

// Infof prints the message as a line.
func (l To) Infof(format string, args ...any) { fmt.Fprintf(l.W, format+"\n", args...) }

// Warn prints the message as Warning shows it.
func (l To) Warn(msg string) { fmt.Fprintln(l.W, Warning(msg)) }

// IOStreams are where a command's output goes, as kind's cmd.IOStreams:
// Out the result the command was asked for, ErrOut what a user reads
// beside it (notes, a child tool's own output). A library that writes
// output takes them in its Options beside its Logger and writes nowhere
// else; a nil stream discards (see OrDiscard). There is no In: no kbook
// library reads its standard input.
type IOStreams struct {
	Out, ErrOut io.Writer
}

// OrDiscard returns s with each nil stream set to io.Discard.
func (s IOStreams) OrDiscard() IOStreams {
	if s.Out == nil {
		s.Out = io.Discard
	}
	if s.ErrOut == nil {
		s.ErrOut = io.Discard
	}
	return s
}
