package gobuild

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Lock takes an exclusive flock on path (created if needed), waiting
// until it is free or ctx is done. While it waits it calls waiting with a
// line saying which process holds the lock, what it is doing (what, then
// its latest progress message, see heldLock.Logger) and for how long: at
// once, then every lockReport. The lock also excludes other goroutines of
// this process, since each call opens the file anew.
func Lock(ctx context.Context, path, what string, waiting func(msg string)) (*heldLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	start := time.Now()
	var told time.Time
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			l := &heldLock{f: f, holder: newHolder(what)}
			l.doing(what)
			l.unlock = func() {
				_ = f.Truncate(0)
				_ = syscall.Flock(fd, syscall.LOCK_UN)
				_ = f.Close()
			}
			return l, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, err
		}
		if now := time.Now(); told.IsZero() || now.Sub(told) >= lockReport {
			waiting(waitMessage(path, what, now.Sub(start), now))
			told = now
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, context.Cause(ctx)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// KillGroupOnCancel runs cmd in its own process group and makes
// cancellation kill the whole group: go build's compile and link children
// as well as go itself. Since a terminal's Ctrl-C then no longer reaches go
// build, it also dies with kbook (Pdeathsig) if kbook dies without
// cancelling; its short-lived compile children finish on their own.
func KillGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
