//go:build !windows

package cluster

import (
	"os/exec"
	"syscall"
)

// processAlive reports whether a process runs.
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// terminate asks a process to stop.
func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }

// Detach makes cmd outlive the terminal session that starts it, as the
// process behind `kbook cluster up` must.
func Detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
