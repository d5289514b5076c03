package main

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes a kbook the site tests start die with the test binary,
// even when that is killed (a test run cut short must leave no kbook serve
// behind).
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
