package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
)

// TestOnlyInterrupted: an interrupted command's "context canceled" is not
// printed after the signal handler's "interrupted" line; any other error,
// or a cancellation kbook was not interrupted by, still is.
func TestOnlyInterrupted(t *testing.T) {
	cause := errors.New("interrupt")
	interrupted, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	running := context.Background()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		ee   *exitError
		want bool
	}{
		{"canceled", interrupted, &exitError{findings.ExitInterrupted, fmt.Errorf("start: %w", context.Canceled)}, true},
		{"the cause", interrupted, &exitError{findings.ExitInterrupted, fmt.Errorf("wait: %w", cause)}, true},
		{"another error", interrupted, &exitError{findings.ExitInterrupted, errors.New("cluster process exited")}, false},
		{"not interrupted", running, &exitError{findings.ExitErrors, context.Canceled}, false},
		{"bad input while interrupted", interrupted, &exitError{findings.ExitBadInput, context.Canceled}, false},
	} {
		if got := onlyInterrupted(tc.ctx, tc.ee); got != tc.want {
			t.Errorf("%s: onlyInterrupted = %v, want %v", tc.name, got, tc.want)
		}
	}
}
