//go:build unix && !linux

package proc

import (
	"os/exec"
	"syscall"
)

// inspect knows only whether the pid exists: this system offers no start
// time through the standard library, so recorded processes are not
// verifiable and Sweep never kills them.
func inspect(pid int) (Process, error) {
	if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
		return Process{}, ErrGone
	}
	return Process{PID: pid}, nil
}

// childAttr gives a child its own process group; there is no parent-death
// signal here.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func setDeathSignal() error { return nil }

// canWrap: the wrapper still records the process.
const canWrap = true

func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
func kill(pid int) error      { return syscall.Kill(pid, syscall.SIGKILL) }

func killGroup(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

func execve(path string, args, env []string) error { return syscall.Exec(path, args, env) }

func mergeChildAttr(a *syscall.SysProcAttr) { a.Setpgid = true }

// processesIn cannot look into other processes' environments here.
func processesIn([]string) []Process { return nil }

// findSetpriv: no parent-death signal here, so no setpriv either.
func findSetpriv() string { return "" }
