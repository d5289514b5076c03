//go:build !windows

package plane

import (
	"errors"
	"os/exec"
	"runtime"
	"syscall"
)

var errTimeout = errors.New("still running 10s after SIGKILL")

func childAttr(cmd *exec.Cmd) {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if runtime.GOOS == "linux" {
		setPdeathsig(attr)
	}
	cmd.SysProcAttr = attr
}

func terminateGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGTERM) }
func killGroup(pid int)      { _ = syscall.Kill(-pid, syscall.SIGKILL) }
