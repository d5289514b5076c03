package findings

import (
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
)

// Report is what one validator found in one input: a chart, a provider's
// components, a chain file.
type Report struct {
	// Kind names what Name is, as the JSON key of it: "chart",
	// "provider", "path". Empty means "name".
	Kind string
	// Name is the input as the user gave it (a chart directory or .tgz,
	// a file).
	Name string
	// Base is what relative File names are relative to: text and SARIF
	// output join it to them (a chart's path for Chart.yaml). Empty
	// leaves them as they are.
	Base string
	// Given lists files the user named (a --config file): text and SARIF
	// show them as given, never joined to Base.
	Given []string
	// Default is the Config that text output leaves unsaid (a template's
	// "defaults"); findings with another Config say "(with CONFIG)".
	Default string
	// Findings, as Registry.Finish left them.
	Findings []Finding
	// Detail is what the tool reports besides its findings; nil for
	// none.
	Detail Detail
}

// Detail is what a tool reports besides its findings: chain validate's
// verdicts and upgrade paths, upgrade check's two sides and predicted
// rollouts, the number of runbooks check read. Text output writes its
// Head before the finding lines, its Tail after them and its Summary as
// the last line; JSON output adds the fields of its JSON object after
// "findings"; SARIF leaves it out.
type Detail interface {
	Head(w io.Writer)
	Tail(w io.Writer)
	// Summary is the last line of text output, given the report's
	// counts (Tally words them as the default summary does).
	Summary(errors, warnings, infos int) string
}

// Errors counts the findings of severity error.
func (r *Report) Errors() int { e, _, _ := Count(r.Findings); return e }

// Warnings counts the findings of severity warning.
func (r *Report) Warnings() int { _, w, _ := Count(r.Findings); return w }

// Infos counts the findings of severity info.
func (r *Report) Infos() int { _, _, i := Count(r.Findings); return i }

// FilePath is a finding's file as a path from the working directory, with
// slashes: relative names joined to Base, given and absolute ones as they
// are. "" when the finding has no file.
func (r *Report) FilePath(f Finding) string {
	switch {
	case f.File == "":
		return ""
	case r.Base == "" || slices.Contains(r.Given, f.File) || filepath.IsAbs(f.File):
		return filepath.ToSlash(f.File)
	default:
		return path.Join(filepath.ToSlash(r.Base), f.File)
	}
}

// Location is where a finding is for people: FILE:LINE, FILE, or the
// report's Name when the finding has no file ("" when there is no Name
// either: text output then starts the line with the severity).
func (r *Report) Location(f Finding) string {
	file := r.FilePath(f)
	if file == "" {
		return r.Name
	}
	return location(file, f.Line)
}

// The exit codes of every kbook command, validating or not: the one
// table of them.
const (
	ExitOK       = 0 // no finding is an error (warnings allowed); the command did what it was asked
	ExitErrors   = 1 // a finding is an error; a runbook or what the command did failed
	ExitBadInput = 2 // an input could not be read, or a bad flag: nothing was checked
	// ExitInterrupted is a command stopped by Ctrl-C (SIGINT, SIGTERM,
	// SIGHUP), as shells report a program SIGINT killed.
	ExitInterrupted = 130
	// ExitBrokenPipe is what a shell reports for a program SIGPIPE
	// killed: kbook stopped because its output went nowhere (| head).
	ExitBrokenPipe = 141
)

// ExitCode is the exit code for these reports: ExitBadInput when a finding
// of an Input rule is among them, else ExitErrors when any finding is an
// error, else ExitOK.
func (r *Registry) ExitCode(reports ...*Report) int {
	code := ExitOK
	for _, rep := range reports {
		if r.BadInput(rep.Findings) {
			return ExitBadInput
		}
		if rep.Errors() > 0 {
			code = ExitErrors
		}
	}
	return code
}

// ExitFor is the exit code of a command that ended with err, from the
// table: ExitOK for none, ExitBadInput for an InputError, ExitInterrupted
// for any other error of a command that was interrupted (its context
// ended), else ExitErrors.
func ExitFor(err error, interrupted bool) int {
	switch {
	case err == nil:
		return ExitOK
	case IsInput(err):
		return ExitBadInput
	case interrupted:
		return ExitInterrupted
	}
	return ExitErrors
}

// InputError is bad input a library found before it could check anything:
// a missing file, YAML that does not parse, an unknown flag value. Commands
// print it as one line and exit ExitBadInput. With a File it is kbook's one
// located error, "file:line: message" (runbooks, kbook.yaml, MkDocs
// projects and their pages, the site's templates): no package keeps a
// File/Line/Msg type of its own.
type InputError struct {
	File string // as given; empty when no file is involved
	Line int    // 1-based; 0 when unknown
	Err  error
}

func (e *InputError) Error() string {
	if e.File == "" {
		return e.Err.Error()
	}
	return location(e.File, e.Line) + ": " + e.Err.Error()
}

func (e *InputError) Unwrap() error { return e.Err }

// Inputf returns an InputError at file:line (either may be zero).
func Inputf(file string, line int, format string, args ...any) error {
	return &InputError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

// Input marks err as bad input: err itself when it is (or wraps) an
// InputError already, else err in an InputError without a file; nil stays
// nil. Libraries return their callers' bad input through it.
func Input(err error) error {
	if err == nil || IsInput(err) {
		return err
	}
	return &InputError{Err: err}
}

// Located returns the first InputError in err's chain that names a file
// (a problem at a file's line, the one located error of every kbook
// reader), or nil.
func Located(err error) *InputError {
	for err != nil {
		var ie *InputError
		if !errors.As(err, &ie) {
			return nil
		}
		if ie.File != "" {
			return ie
		}
		err = ie.Err
	}
	return nil
}

// IsInput reports whether err is (or wraps) an InputError.
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
