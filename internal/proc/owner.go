package proc

import (
	"sync"
	"syscall"

	"github.com/k0rdent/kbook/internal/log"
)

// current is the registry of this process Own opened, for KillAll.
var current struct {
	mu  sync.Mutex
	reg *Registry
}

// Own reaps what earlier kbook processes left under root (killed with
// SIGKILL, or by SIGPIPE before kbook handled it) and opens this
// process's registry there, the one KillAll kills; commands that start
// servers call it first. close stops what is still recorded and removes
// the registry. Without a registry (an unwritable cache), kbook still
// runs, untracked: reg is nil and log says so.
func Own(root string, log log.Logger) (reg *Registry, close func()) {
	SweepLogged(root, log)
	reg, err := Open(root)
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
		// Only now: a KillAll during Close must still finish it.
		current.mu.Lock()
		current.reg = nil
		current.mu.Unlock()
	}
}

// SweepLogged reaps what earlier kbook processes left under root, saying
// what it cleaned up.
func SweepLogged(root string, log log.Logger) {
	reaped, err := Sweep(root)
	for _, r := range reaped {
		log.Infof("kbook: cleaned up after kbook (pid %d), which ended without cleaning up: %s", r.Owner.PID, r)
	}
	if err != nil {
		log.Infof("warning: cleaning up after earlier kbook processes: %v", err)
	}
}

// KillAll kills every process kbook started (its descendants and what
// the registry Own opened holds) and removes that registry's directories:
// the second Ctrl-C.
func KillAll() (Reaped, error) {
	current.mu.Lock()
	reg := current.reg
	current.mu.Unlock()
	SignalDescendants(syscall.SIGKILL)
	return reg.Kill()
}
