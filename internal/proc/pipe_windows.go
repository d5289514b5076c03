//go:build windows

package proc

import "os"

// NotifyBrokenPipe does nothing: Windows has no SIGPIPE.
func NotifyBrokenPipe(chan<- os.Signal) {}

// IsBrokenPipe is always false on Windows.
func IsBrokenPipe(os.Signal) bool { return false }

// OutputBroken is always false on Windows.
func OutputBroken() bool { return false }
