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
func Own(root string, logger log.Logger) (reg *Registry, close func()) {
	SweepLogged(root, logger)
	reg, err := Open(root)
	if err != nil {
		log.Warnf(logger, "the processes kbook starts are not tracked: %v", err)
		return nil, func() {}
	}
	current.mu.Lock()
	current.reg = reg
	current.mu.Unlock()
	return reg, func() {
		if _, err := reg.Close(); err != nil {
			log.Warnf(logger, "%v", err)
		}
		// Only now: a KillAll during Close must still finish it.
		current.mu.Lock()
		current.reg = nil
		current.mu.Unlock()
	}
}

// Opener opens the registry of what a command starts and returns its
// close, the way a library whose options hold one opens it: when it starts
// something, with its own Logger. A nil Opener tracks nothing.
type Opener func(log.Logger) (*Registry, func())

// Open calls o; a nil o returns no registry (untracked) and a close that
// does nothing.
func (o Opener) Open(l log.Logger) (*Registry, func()) {
	if o == nil {
		return nil, func() {}
	}
	return o(log.Or(l))
}

// OwnUnder is the Opener of this process's registry under root (Own).
func OwnUnder(root func() string) Opener {
	return func(l log.Logger) (*Registry, func()) { return Own(root(), l) }
}

// Opened is the Opener of a registry already open: its close is the
// caller's, so the one Open returns does nothing.
func Opened(reg *Registry) Opener {
	return func(log.Logger) (*Registry, func()) { return reg, func() {} }
}

// SweepLogged reaps what earlier kbook processes left under root, saying
// what it cleaned up.
func SweepLogged(root string, logger log.Logger) {
	reaped, err := Sweep(root)
	for _, r := range reaped {
		logger.Infof("kbook: cleaned up after kbook (pid %d), which ended without cleaning up: %s", r.Owner.PID, r)
	}
	if err != nil {
		log.Warnf(logger, "cleaning up after earlier kbook processes: %v", err)
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
