// Command kbook runs executable k0rdent runbooks and checks templates and
// providers. The commands here parse flags, call the packages under
// internal/ (README.md's package table says which owns what) and map their
// results to exit codes; issue 16 moves the logic still here into them.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/go-logr/logr"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/k0rdent/kbook/internal/skeleton"
	"github.com/spf13/cobra"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks bad input: exit code 2.
func usageError(err error) error { return &exitError{findings.ExitBadInput, err} }

// code is an exit code as an error: nil for findings.ExitOK.
func code(c int) error {
	if c == findings.ExitOK {
		return nil
	}
	return &exitError{c, nil}
}

// Why a run was cancelled.
var (
	errInterrupted = errors.New("interrupted")
	errBrokenPipe  = errors.New("output closed (broken pipe)")
)

// failure maps a library error to the findings exit-code convention: bad
// input (findings.InputError) exits 2, any other failure 1.
func failure(err error) error {
	if findings.IsInput(err) {
		return usageError(err)
	}
	return &exitError{findings.ExitErrors, err}
}

// exit maps a library's error to the exit-code table: bad input
// (findings.InputError) 2, interrupted 130, any other failure 1.
func exit(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case findings.IsInput(err):
		return usageError(err)
	case ctx.Err() != nil:
		return &exitError{findings.ExitInterrupted, err}
	}
	return &exitError{findings.ExitErrors, err}
}

// to is a command's output, for the results its library call returns.
type to struct{ cmd *cobra.Command }

// created reports what a scaffold wrote; its error is bad input.
func (t to) created(c skeleton.Created, err error) error {
	if err != nil {
		return usageError(err)
	}
	return c.Write(t.cmd.OutOrStdout())
}

func main() {
	// The wrapper that makes local servers die with kbook (package proc)
	// is this binary too.
	proc.RunWrapper()
	// So is the process a Hugo build runs in (package site): a stuck
	// build is killed with its process group.
	site.RunHugoChild()
	// Libraries kbook uses (Helm's template engine in lint mode) print
	// through the standard logger; kbook reports what matters itself.
	log.SetOutput(io.Discard)
	// controller-runtime (envtest) complains with a goroutine dump on
	// stderr when it logs more than 30 s after start without a logger.
	ctrllog.SetLogger(logr.Discard())
	ctx, cancel := context.WithCancelCause(context.Background())
	go handleSignals(cancel)
	code := execute(ctx, normalizeArgs(os.Args[1:]))
	if errors.Is(context.Cause(ctx), errBrokenPipe) && code != findings.ExitBadInput {
		code = findings.ExitBrokenPipe
	}
	os.Exit(code)
}

// handleSignals turns the first SIGINT/SIGTERM/SIGHUP, or a SIGPIPE from a
// closed stdout or stderr, into a cancelled context: commands stop what
// they started in order and exit. A second SIGINT/SIGTERM kills what kbook
// started (servers, the programs runbooks run) and exits at once.
func handleSignals(cancel context.CancelCauseFunc) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	proc.NotifyBrokenPipe(sigs)
	stopping := false
	for sig := range sigs {
		if proc.IsBrokenPipe(sig) {
			// Only the output kbook writes to matters: a runbook's
			// command closing its stdin raises SIGPIPE too.
			if !stopping && proc.OutputBroken() {
				stopping = true
				cancel(errBrokenPipe)
			}
			continue
		}
		if !stopping {
			stopping = true
			fmt.Fprintln(os.Stderr, "\nkbook: interrupted: stopping running commands and cleaning up (press Ctrl-C again to kill everything and exit at once)")
			cancel(errInterrupted)
			continue
		}
		forceExit()
	}
}

// execute executes the command line and returns the exit code.
func execute(ctx context.Context, args []string) int {
	args = compatArgs(args, os.Stderr)
	root := newRootCmd()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return findings.ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(os.Stderr, "Error:", ee.err)
		}
		return ee.code
	}
	// cobra's own errors: unknown flag or command, bad argument count.
	fmt.Fprintln(os.Stderr, "Error:", err)
	fmt.Fprintf(os.Stderr, "Run '%s --help' for usage.\n", root.CommandPath())
	return findings.ExitBadInput
}

// compatArgs keeps "kbook -v", which once printed the version, working
// with a note: -v means verbose (kbook run -v), as in kubectl, where it
// goes before or after the command: "kbook -v run x.md" is "kbook run -v
// x.md".
func compatArgs(args []string, stderr io.Writer) []string {
	if len(args) == 0 || args[0] != "-v" {
		return args
	}
	if len(args) == 1 {
		fmt.Fprintln(stderr, "kbook: -v for the version is deprecated (-v means --verbose, as in kbook run -v): use kbook version or kbook --version")
		return []string{"--version"}
	}
	// The command's own flags: before a "--" that ends them.
	rest := append([]string(nil), args[1:]...)
	end := slices.Index(rest, "--")
	if end < 0 {
		end = len(rest)
	}
	return slices.Concat(rest[:end], []string{"-v"}, rest[end:])
}

// normalizeArgs accepts go test's single-dash spelling of -run.
func normalizeArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case a == "-run":
			a = "--run"
		case len(a) > 5 && a[:5] == "-run=":
			a = "-" + a
		}
		out[i] = a
	}
	return out
}
