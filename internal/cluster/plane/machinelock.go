package plane

import (
	"context"
	"os"
	"path/filepath"

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
func LockMachine(ctx context.Context, waiting func(msg string)) (unlock func(), err error) {
	l, err := gobuild.Lock(ctx, machineLock, "running a local k0rdent plane", waiting)
	if err != nil {
		return nil, err
	}
	return func() {
		if l != nil {
			l.Unlock()
		}
	}, nil
}

// machineLock is the lock's file; a unit test points it at a file of its
// own, so that it neither waits for a real plane nor blocks one.
var machineLock = filepath.Join(os.TempDir(), "kbook-local-plane.lock")
