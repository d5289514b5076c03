package main

import (
	"github.com/k0rdent/kbook/internal/log"
	"os"
	"path/filepath"

	"github.com/k0rdent/kbook/internal/proc"
)

// stderrLog is the Logger of commands that report progress on stderr.
var stderrLog = log.To{W: os.Stderr}

// procsRoot is where kbook records the processes and directories it
// starts (see package proc).
func procsRoot() string { return filepath.Join(cacheRoot(), "procs") }

// openProcs opens this process's registry of what it starts (proc.Own).
func openProcs(log log.Logger) (*proc.Registry, func()) { return proc.Own(procsRoot(), log) }

// sweepProcs reaps what earlier kbook processes left behind.
func sweepProcs(log log.Logger) { proc.SweepLogged(procsRoot(), log) }
