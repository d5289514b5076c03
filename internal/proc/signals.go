package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Why HandleSignals cancelled a command's context.
var (
	ErrInterrupted = errors.New("interrupted")
	ErrBrokenPipe  = errors.New("output closed (broken pipe)")
)

// HandleSignals turns the first SIGINT, SIGTERM or SIGHUP into
// cancel(ErrInterrupted), saying so on stderr, and a SIGPIPE from a closed
// stdout or stderr into cancel(ErrBrokenPipe): the command stops what it
// started in order and exits. A second SIGINT, SIGTERM or SIGHUP kills
// what kbook started (KillAll), says what on stderr and calls exit: the
// way out at once. It returns when the process ends.
func HandleSignals(cancel context.CancelCauseFunc, stderr io.Writer, exit func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	NotifyBrokenPipe(sigs)
	stopping := false
	for sig := range sigs {
		if IsBrokenPipe(sig) {
			// Only the output kbook writes to matters: a runbook's
			// command closing its stdin raises SIGPIPE too.
			if !stopping && OutputBroken() {
				stopping = true
				cancel(ErrBrokenPipe)
			}
			continue
		}
		if !stopping {
			stopping = true
			fmt.Fprintln(stderr, "\nkbook: interrupted: stopping running commands and cleaning up (press Ctrl-C again to kill everything and exit at once)")
			cancel(ErrInterrupted)
			continue
		}
		res, err := KillAll()
		if err != nil {
			fmt.Fprintf(stderr, "kbook: %v\n", err)
		}
		if len(res.Stopped) > 0 {
			fmt.Fprintf(stderr, "kbook: %s\n", res)
		}
		exit()
	}
}
