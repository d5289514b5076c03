//go:build !linux

package gobuild

import (
	"context"
	"os/exec"
)

// Lock does not lock outside Linux: two processes may then build at
// once, and the second to finish finds the directory complete and keeps it.
func Lock(ctx context.Context, path, what string, waiting func(msg string)) (*heldLock, error) {
	return nil, nil
}

// KillGroupOnCancel keeps exec's default: cancellation kills go build only.
func KillGroupOnCancel(cmd *exec.Cmd) {}
