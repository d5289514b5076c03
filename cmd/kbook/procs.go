package main

import (
	"fmt"
	"github.com/k0rdent/kbook/internal/log"
	"os"
	"path/filepath"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/proc"
)

// procsRoot is where kbook records the processes and directories it
// starts (see package proc).
func procsRoot() string { return filepath.Join(cacheRoot(), "procs") }

// openProcs opens this process's registry of what it starts (proc.Own).
func openProcs(log log.Logger) (*proc.Registry, func()) { return proc.Own(procsRoot(), log) }

// sweepProcs reaps what earlier kbook processes left behind.
func sweepProcs(log log.Logger) { proc.SweepLogged(procsRoot(), log) }

// forceExit is the second Ctrl-C: kill everything kbook started, remove
// its directories, exit.
func forceExit() {
	res, err := proc.KillAll()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kbook: %v\n", err)
	}
	if len(res.Stopped) > 0 {
		fmt.Fprintf(os.Stderr, "kbook: %s\n", res)
	}
	os.Exit(findings.ExitInterrupted)
}
