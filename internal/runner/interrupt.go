package runner

import (
	"context"
	"syscall"
	"time"

	"github.com/k0rdent/kbook/internal/proc"
)

// watchInterrupt stops every process a runbook started when ctx is
// cancelled: SIGINT first, SIGKILL for what still runs after a grace
// period. testscript's exec has no context of its own beyond the deadline,
// so this is how Ctrl-C reaches kubectl, helm and friends.
func watchInterrupt(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		proc.SignalDescendants(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			proc.SignalDescendants(syscall.SIGKILL)
		}
	}()
	return func() { close(done) }
}
