//go:build unix

package proc

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// NotifyBrokenPipe relays SIGPIPE to c. Without it a write to a closed
// stdout (kbook run | head) kills kbook on the spot, before it can stop
// what it started; with it the write fails with EPIPE instead. Writes to
// other pipes raise SIGPIPE too: check OutputBroken on each signal.
// Children's SIGPIPE disposition is unaffected.
func NotifyBrokenPipe(c chan<- os.Signal) { signal.Notify(c, syscall.SIGPIPE) }

// IsBrokenPipe reports whether sig is SIGPIPE.
func IsBrokenPipe(sig os.Signal) bool { return sig == syscall.SIGPIPE }

// OutputBroken reports whether this process's stdout or stderr is a pipe
// or socket whose reading end is gone.
func OutputBroken() bool {
	fds := []unix.PollFd{{Fd: 1, Events: unix.POLLOUT}, {Fd: 2, Events: unix.POLLOUT}}
	if _, err := unix.Poll(fds, 0); err != nil {
		return false
	}
	for _, f := range fds {
		if f.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return true
		}
	}
	return false
}
