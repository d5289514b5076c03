//go:build !linux

package assets

import (
	"context"
	"os/exec"
)

// lockFile does not lock outside Linux: two processes may then build at
// once, and the second to finish finds the directory complete and keeps it.
func lockFile(ctx context.Context, path, what string, waiting func(msg string)) (*heldLock, error) {
	return nil, nil
}

// killGroupOnCancel keeps exec's default: cancellation kills go build only.
func killGroupOnCancel(cmd *exec.Cmd) {}
