//go:build !linux

package runner

import "context"

// watchInterrupt is a no-op where /proc is unavailable: testscript's
// deadline still ends every command.
func watchInterrupt(context.Context) (stop func()) { return func() {} }
