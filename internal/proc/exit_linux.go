package proc

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Exited returns a channel closed when process pid exits, whoever reaps
// it: the kernel tells (a pidfd becomes readable), nothing polls.
func Exited(pid int) (<-chan struct{}, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, fmt.Errorf("watch process %d: %w", pid, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			_, err := unix.Poll(fds, -1)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
	}()
	return done, nil
}
