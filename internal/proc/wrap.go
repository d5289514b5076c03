package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// WrapArg is the first argument of the wrapper mode Registry.Wrap's
// scripts call.
const WrapArg = "__kbook-proc-wrap"

// RunWrapper runs the wrapper mode when os.Args ask for it and then never
// returns; otherwise it returns at once. Programs whose registries Wrap
// binaries (kbook's main, test binaries that start wrapped servers) call
// it first thing.
func RunWrapper() {
	if len(os.Args) < 2 || os.Args[1] != WrapArg {
		return
	}
	err := runWrapper(os.Args[2:])
	fmt.Fprintf(os.Stderr, "kbook process wrapper: %v\n", err)
	os.Exit(127)
}

// runWrapper: DIR OWNER-PID NAME BINARY ARGS... It returns only on failure.
func runWrapper(args []string) error {
	// The parent-death signal belongs to the thread that sets it, and exec
	// keeps that of the thread calling it: both must be this one.
	runtime.LockOSThread()
	if len(args) < 4 {
		return fmt.Errorf("usage: %s DIR OWNER-PID NAME BINARY [ARGS...]", WrapArg)
	}
	dir, name, bin := args[0], args[2], args[3]
	ownerPID, err := strconv.Atoi(args[1])
	if err != nil {
		return fmt.Errorf("owner pid %q: %w", args[1], err)
	}
	if err := setDeathSignal(); err != nil {
		return fmt.Errorf("set parent-death signal: %w", err)
	}
	// The owner may have died before the signal was armed.
	if os.Getppid() != ownerPID {
		return fmt.Errorf("kbook (pid %d) that started %s is gone", ownerPID, name)
	}
	self, err := Inspect(os.Getpid())
	if err != nil {
		return err
	}
	self.Exe, self.Name = bin, name
	r := &Registry{dir: dir}
	if _, err := os.Stat(filepath.Join(dir, ownerFile)); err != nil {
		return fmt.Errorf("process registry %s: %w", dir, err)
	}
	if err := r.Track(self); err != nil {
		return err
	}
	return execve(bin, append([]string{bin}, args[4:]...), os.Environ())
}
