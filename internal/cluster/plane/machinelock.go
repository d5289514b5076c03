package plane

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/k0rdent/kbook/internal/gobuild"
)

// LockMachine waits until no other process of this machine holds the
// lock that the starters of a full local plane share, then takes it; the
// returned func gives it back (the system does too, when the process
// dies). Only one full plane runs per machine, since CAPD's in-memory
// backend always listens on one port: Start takes this lock for a plane
// with controllers and Stop gives it back, so that two `kbook run
// --k0rdent` (or `go test ./...`, which runs packages in parallel, and a
// kbook beside it) run their planes one after the other instead of one
// failing on the port. waiting hears who holds it, every few seconds.
//
// The lock is the process's: taken again in a process that holds it, it
// is held once more (given back with the last unlock), so that a test
// that starts several planes one after the other holds it across them,
// instead of queueing again behind other processes' planes before each.
func LockMachine(ctx context.Context, waiting func(msg string)) (unlock func(), err error) {
	if machine.heldAgain() {
		return machine.release(), nil
	}
	machine.taking.Lock() // one flock per process
	defer machine.taking.Unlock()
	if machine.heldAgain() { // taken while this one waited for taking
		return machine.release(), nil
	}
	l, err := gobuild.Lock(ctx, machineLock, "running a local k0rdent plane", waiting)
	if err != nil {
		return nil, err
	}
	machine.Lock()
	machine.flock = l
	machine.holds++
	machine.Unlock()
	return machine.release(), nil
}

// machineHold is this process's hold on the machine's plane lock: how
// many holds, the flock while there is one, and taking, held by the one
// goroutine that waits for the flock.
type machineHold struct {
	sync.Mutex
	holds  int
	flock  interface{ Unlock() }
	taking sync.Mutex
}

var machine machineHold

// heldAgain adds a hold when the process holds the lock already.
func (m *machineHold) heldAgain() bool {
	m.Lock()
	defer m.Unlock()
	if m.holds > 0 {
		m.holds++
		return true
	}
	return false
}

// release gives one hold back, once however often it is called.
func (m *machineHold) release() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			m.Lock()
			defer m.Unlock()
			if m.holds--; m.holds == 0 && m.flock != nil {
				m.flock.Unlock()
				m.flock = nil
			}
		})
	}
}

// machineLock is the lock's file; a unit test points it at a file of its
// own, so that it neither waits for a real plane nor blocks one.
var machineLock = filepath.Join(os.TempDir(), "kbook-local-plane.lock")
