//go:build windows

package cluster

import (
	"os"
	"os/exec"
	"syscall"
)

// terminate stops a process; Windows has no SIGTERM.
func terminate(pid int) error { return kill(pid) }

func kill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// Detach makes cmd outlive the console that starts it.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
