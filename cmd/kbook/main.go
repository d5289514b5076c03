// Command kbook runs executable k0rdent runbooks and checks templates and
// providers. The commands here only wire, as kind's and clusterctl's do:
// flags into a library's options, one call of the package that owns the
// verb (README.md's package table says which), its result to an exit code
// (exit.go); their words are internal/clidocs' help files.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/go-logr/logr"
	"github.com/k0rdent/kbook/internal/cli"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/site"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

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
	go proc.HandleSignals(cancel, os.Stderr, func() { os.Exit(findings.ExitInterrupted) })
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(context.Cause(ctx), proc.ErrBrokenPipe) && code != findings.ExitBadInput {
		code = findings.ExitBrokenPipe
	}
	os.Exit(code)
}

// execute executes the command line, its results on stdout and the rest
// on stderr, and returns the exit code.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(cli.Args(args, stderr))
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return findings.ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" && !onlyInterrupted(ctx, ee) {
			fmt.Fprintln(stderr, "Error:", ee.err)
		}
		return ee.code
	}
	// cobra's own errors: unknown flag or command, bad argument count.
	fmt.Fprintln(stderr, "Error:", err)
	fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	return findings.ExitBadInput
}

// onlyInterrupted tells an interrupted command whose error says no more
// than that ("context canceled"): the signal handler has said it already.
func onlyInterrupted(ctx context.Context, ee *exitError) bool {
	return ee.code == findings.ExitInterrupted && ctx.Err() != nil &&
		(errors.Is(ee.err, context.Canceled) || errors.Is(ee.err, context.Cause(ctx)))
}
