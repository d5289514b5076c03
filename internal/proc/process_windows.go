//go:build windows

package proc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// inspect knows only whether the pid can be opened: recorded processes are
// not verifiable and Sweep never kills them.
func inspect(pid int) (Process, error) {
	p, err := os.FindProcess(pid)
	if err != nil {
		return Process{}, ErrGone
	}
	_ = p.Release()
	return Process{PID: pid}, nil
}

// childAttr gives a child its own process group.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

func setDeathSignal() error { return nil }

// canWrap: there is no shell to wrap programs with.
const canWrap = false

func terminate(pid int) error { return kill(pid) } // Windows has no SIGTERM

func kill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }

func execve(string, []string, []string) error {
	return errors.New("exec is not supported on windows")
}

func mergeChildAttr(a *syscall.SysProcAttr) { a.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP }

// processesIn cannot look into other processes' environments here.
func processesIn([]string) []Process { return nil }

// findSetpriv: Windows wraps nothing.
func findSetpriv() string { return "" }
