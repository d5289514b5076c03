package main

import (
	"context"
	"fmt"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/skeleton"
	"github.com/spf13/cobra"
)

// exitError carries an exit code of findings' table out of a command.
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

// result exits after a command wrote its result: the write's error, else
// 1 when the result is a failure (a runbook, a check, a closed window).
func result(written error, failed bool) error {
	if written != nil || !failed {
		return written
	}
	return code(findings.ExitErrors)
}

// exit maps a library's error to findings' exit-code table (ExitFor):
// none 0, bad input 2, interrupted (ctx done) 130, any other failure 1.
func exit(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{findings.ExitFor(err, ctx.Err() != nil), err}
}

// failure is exit for a command that cannot be interrupted.
func failure(err error) error { return exit(context.Background(), err) }

// to is a command's output, for the results its library call returns.
type to struct{ cmd *cobra.Command }

// created reports what a scaffold wrote; its error is bad input.
func (t to) created(c skeleton.Created, err error) error {
	if err != nil {
		return usageError(err)
	}
	return c.Write(t.cmd.OutOrStdout())
}

// bytes writes a library's result as it is; its error exits as failure
// maps it.
func (t to) bytes(data []byte, err error) error {
	if err != nil {
		return failure(err)
	}
	_, err = t.cmd.OutOrStdout().Write(data)
	return err
}

// line prints a library's result (a path, a Stringer) as one line; its
// error exits as exit maps it.
func (t to) line(res any, err error) error {
	if err != nil {
		return exit(t.cmd.Context(), err)
	}
	_, err = fmt.Fprintln(t.cmd.OutOrStdout(), res)
	return err
}

// first is the optional argument of a command: "" when not given.
func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
