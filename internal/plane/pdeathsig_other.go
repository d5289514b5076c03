//go:build !linux && !windows

package plane

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}
