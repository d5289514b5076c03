package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/proc"
)

// procsRoot is where kbook records the processes and directories it
// starts (see package proc).
func procsRoot() string { return filepath.Join(cacheRoot(), "procs") }

// current is the registry of this process, for forceExit.
var current struct {
	mu  sync.Mutex
	reg *proc.Registry
}

// infof prints a progress line.
type infof interface {
	Infof(format string, args ...any)
}

// openProcs reaps what earlier kbook processes left behind (killed with
// SIGKILL, or by SIGPIPE before kbook handled it) and opens this
// process's registry; commands that start servers call it first. close
// stops what is still recorded and removes the registry. Without a
// registry (an unwritable cache), kbook still runs, untracked.
func openProcs(log infof) (reg *proc.Registry, close func()) {
	sweepProcs(log)
	reg, err := proc.Open(procsRoot())
	if err != nil {
		log.Infof("warning: the processes kbook starts are not tracked: %v", err)
		return nil, func() {}
	}
	current.mu.Lock()
	current.reg = reg
	current.mu.Unlock()
	return reg, func() {
		if _, err := reg.Close(); err != nil {
			log.Infof("warning: %v", err)
		}
		// Only now: a forced exit during Close must still finish it.
		current.mu.Lock()
		current.reg = nil
		current.mu.Unlock()
	}
}

// sweepProcs reaps what earlier kbook processes left behind.
func sweepProcs(log infof) {
	reaped, err := proc.Sweep(procsRoot())
	for _, r := range reaped {
		log.Infof("kbook: cleaned up after kbook (pid %d), which ended without cleaning up: %s", r.Owner.PID, r)
	}
	if err != nil {
		log.Infof("warning: cleaning up after earlier kbook processes: %v", err)
	}
}

// forceExit is the second Ctrl-C: kill everything kbook started, remove
// its directories, exit.
func forceExit() {
	current.mu.Lock()
	reg := current.reg
	current.mu.Unlock()
	proc.SignalDescendants(syscall.SIGKILL)
	res, err := reg.Kill()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kbook: %v\n", err)
	}
	if len(res.Stopped) > 0 {
		fmt.Fprintf(os.Stderr, "kbook: %s\n", res)
	}
	os.Exit(findings.ExitInterrupted)
}
