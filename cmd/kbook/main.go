// Command kbook runs executable k0rdent runbooks and checks templates and
// providers. The commands here only parse flags and print; the work is done
// by the packages under internal/.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks bad input: exit code 2.
func usageError(err error) error { return &exitError{exitUsage, err} }

func main() {
	// Libraries kbook uses (Helm's template engine in lint mode) print
	// through the standard logger; kbook reports what matters itself.
	log.SetOutput(io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		fmt.Fprintln(os.Stderr, "\nkbook: interrupted: stopping running commands and cleaning up (press Ctrl-C again to exit at once)")
		cancel()
		<-sigs
		os.Exit(exitInterrupted)
	}()
	os.Exit(run(ctx, normalizeArgs(os.Args[1:])))
}

// run executes the command line and returns the exit code.
func run(ctx context.Context, args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
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
	return exitUsage
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
