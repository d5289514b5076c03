//go:build !windows

package cluster

import (
	"os/exec"
	"syscall"
)

// terminate asks a process to stop; kill makes it.
func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
func kill(pid int) error      { return syscall.Kill(pid, syscall.SIGKILL) }

// Detach makes cmd outlive the terminal session that starts it, as the
// process behind `kbook cluster up` must.
func Detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
