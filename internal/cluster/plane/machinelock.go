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
// backend always listens on one port: kbook's tests that start one take
// this lock, so that `go test ./...`, which runs packages in parallel,
// runs them one after the other. kbook run --k0rdent does not wait: it
// fails at once, naming the port. waiting hears who holds it.
func LockMachine(ctx context.Context, waiting func(msg string)) (unlock func(), err error) {
	l, err := gobuild.Lock(ctx, filepath.Join(os.TempDir(), "kbook-local-plane.lock"), "starting a local k0rdent plane", waiting)
	if err != nil {
		return nil, err
	}
	return func() {
		if l != nil {
			l.Unlock()
		}
	}, nil
}
