package main

import (
	"os"
	"path/filepath"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/spf13/cobra"
)

// stderrLog is the Logger of commands that report progress on stderr.
var stderrLog = log.To{W: os.Stderr}

// streams are cmd's output and error streams, for a library's Options.
func streams(cmd *cobra.Command) log.IOStreams {
	return log.IOStreams{Out: cmd.OutOrStdout(), ErrOut: cmd.ErrOrStderr()}
}

// cacheRoot is kbook's cache, which holds the kbook cluster up state.
func cacheRoot() string { return cache.DefaultDir() }

// procsRoot is where kbook records the processes and directories it
// starts (see package proc).
func procsRoot() string { return filepath.Join(cacheRoot(), "procs") }

// openProcs opens this process's registry of what it starts (proc.Own):
// the libraries that start servers or make work folders open it when
// they do.
var openProcs = proc.OwnUnder(procsRoot)
