//go:build !linux

package proc

import (
	"errors"
	"fmt"
)

// Exited is Linux only (pidfd); elsewhere kbook does not watch the
// processes a library started.
func Exited(pid int) (<-chan struct{}, error) {
	return nil, fmt.Errorf("watch process %d: %w", pid, errors.ErrUnsupported)
}
