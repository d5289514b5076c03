package plane

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/gobuild"
)

// waitLogger cancels a context at the first line that says Start waits
// for the machine's plane lock, and keeps that line.
type waitLogger struct {
	cancel context.CancelCauseFunc
	line   chan string
}

func (l waitLogger) Infof(format string, args ...any) {
	select {
	case l.line <- fmt.Sprintf(format, args...):
	default:
	}
	l.cancel(errWaited)
}

var errWaited = errors.New("test: Start said it waits")

// TestStartWaitsForThePlaneLock: while another holder (here the test, on a
// lock file of its own; in life another kbook or a test binary) has the
// machine's plane lock, Start
// of a plane with controllers waits, says so, and gives up only when its
// context ends, before it starts or checks anything. An API-only plane
// does not wait: it runs no CAPD.
func TestStartWaitsForThePlaneLock(t *testing.T) {
	defer func(p string) { machineLock = p }(machineLock)
	machineLock = filepath.Join(t.TempDir(), "plane.lock")
	// Another process's hold: a flock of its own on the file.
	other, err := gobuild.Lock(context.Background(), machineLock, "a test", func(msg string) { t.Log(msg) })
	if err != nil {
		t.Fatal(err)
	}
	defer other.Unlock()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	l := waitLogger{cancel: cancel, line: make(chan string, 1)}
	p, err := Start(ctx, Options{StateDir: t.TempDir(), Logger: l})
	if p != nil || !errors.Is(err, errWaited) || !strings.Contains(err.Error(), "local k0rdent plane of another kbook") {
		t.Fatalf("Start while the lock is held = %v, %v; want the wait ended by its context", p, err)
	}
	if msg := <-l.line; !strings.HasPrefix(msg, "waiting for") || !strings.Contains(msg, "running a local k0rdent plane") {
		t.Errorf("Start said %q while it waited", msg)
	}
}

// TestLockMachineHeldAgain: in a process that holds the plane lock,
// LockMachine holds it once more without waiting, and the lock is free
// for other processes only after the last hold is given back (giving one
// back twice counts once).
func TestLockMachineHeldAgain(t *testing.T) {
	defer func(p string) { machineLock = p }(machineLock)
	machineLock = filepath.Join(t.TempDir(), "plane.lock")
	// free tells whether another process could take the lock now.
	free := func() bool {
		tried, cancel := context.WithCancel(context.Background())
		cancel() // gobuild.Lock tries once
		l, err := gobuild.Lock(tried, machineLock, "a test", func(string) {})
		if err != nil {
			return false
		}
		l.Unlock()
		return true
	}
	first, err := LockMachine(context.Background(), func(msg string) { t.Fatalf("the first hold waited: %s", msg) })
	if err != nil {
		t.Fatal(err)
	}
	second, err := LockMachine(context.Background(), func(msg string) { t.Fatalf("the second hold waited: %s", msg) })
	if err != nil {
		t.Fatal(err)
	}
	if free() {
		t.Fatal("the lock is free while held twice")
	}
	second()
	second()
	if free() {
		t.Fatal("the lock is free while held once")
	}
	first()
	if !free() {
		t.Fatal("the lock is still held after the last hold was given back")
	}
}
