package plane

import (
	"errors"
	"os"
	"os/exec"
)

var errTimeout = errors.New("still running 10s after kill")

func childAttr(*exec.Cmd) {}

func terminateGroup(pid int) { killGroup(pid) }

func killGroup(pid int) {
	if p, err := findProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func findProcess(pid int) (*os.Process, error) { return os.FindProcess(pid) }
