//go:build !linux

package proc

import "syscall"

// SignalDescendants does nothing where /proc is unavailable: testscript's
// deadline still ends every command a runbook runs.
func SignalDescendants(syscall.Signal) {}

// Descendants finds nothing where /proc is unavailable.
func Descendants(int) map[int]int { return nil }

// KillDescendantsIn kills nothing where /proc is unavailable: the
// runbook's deadline still ends its commands.
func KillDescendantsIn(string) int { return 0 }
