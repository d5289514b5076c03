//go:build linux

package gobuild

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLockWaitSaysWhat: a process waiting for the build lock is told who
// holds it, what it builds now and for how long; the holder's own progress
// lines pass through.
func TestLockWaitSaysWhat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "envtest.lock")
	held, err := Lock(context.Background(), path, "building kube-apiserver and etcd into /c", func(string) { t.Error("the first lockFile waited") })
	if err != nil {
		t.Fatal(err)
	}
	var own recLogger
	held.Logger(&own).Infof("building %s (first run only, %s)…", "etcd v3.6.16", "about 2 minutes")
	if len(own.lines) != 1 {
		t.Errorf("the holder's logger printed %q", own.lines)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	var waits []string
	_, err = Lock(ctx, path, "building kube-apiserver and etcd into /c", func(msg string) { waits = append(waits, msg) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lockFile: %v, want the deadline", err)
	}
	if len(waits) != 1 {
		t.Fatalf("told %d times in 0.7s, want once (then every %s): %q", len(waits), lockReport, waits)
	}
	for _, want := range []string{
		fmt.Sprintf("waiting for kbook (pid %d: ", os.Getpid()),
		"), building kube-apiserver and etcd into /c for ",
		"; now building etcd v3.6.16 (first run only, about 2 minutes)…",
	} {
		if !strings.Contains(waits[0], want) {
			t.Errorf("wait message %q lacks %q", waits[0], want)
		}
	}

	held.Unlock()
	again, err := Lock(context.Background(), path, "x", func(msg string) { t.Errorf("waited after Unlock: %s", msg) })
	if err != nil {
		t.Fatal(err)
	}
	again.Unlock()
}

// TestWaitMessageWithoutHolder: an older kbook writes nothing into the lock.
func TestWaitMessageWithoutHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := waitMessage(path, "building x", 30*time.Second, time.Now()), "waiting for another kbook process to finish building x… (waited 30s)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestStill: a long build says it is still going until it ends.
func TestStill(t *testing.T) {
	defer func(d time.Duration) { stillEvery = d }(stillEvery)
	stillEvery = 20 * time.Millisecond
	var l recLogger
	stop := Still(&l, "kube-apiserver")
	time.Sleep(110 * time.Millisecond)
	stop()
	stop()
	l.mu.Lock()
	n := len(l.lines)
	first := ""
	if n > 0 {
		first = l.lines[0]
	}
	l.mu.Unlock()
	if n < 2 || !strings.HasPrefix(first, "still building kube-apiserver (") {
		t.Fatalf("got %d lines, first %q", n, first)
	}
	time.Sleep(60 * time.Millisecond)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) != n {
		t.Errorf("still printing after stop: %q", l.lines[n:])
	}
}

// recLogger records progress lines.
type recLogger = Lines
