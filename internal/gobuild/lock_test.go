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
	"testing/synctest"
	"time"
)

// TestLockWaitSaysWhat: a process waiting for the build lock is told who
// holds it, what it builds now and for how long; the holder's own progress
// lines pass through.
//
// It runs in a synctest bubble: the 0.7 s it waits, and Lock's retries
// every 250 ms, are the bubble's fake time, so the count of wait messages
// does not depend on the machine's load, and the test takes no time.
func TestLockWaitSaysWhat(t *testing.T) {
	synctest.Test(t, testLockWaitSaysWhat)
}

func testLockWaitSaysWhat(t *testing.T) {
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

// TestStill: a long build says it is still going, every stillEvery, until
// it ends. In a synctest bubble the ticker runs on fake time: the lines are
// counted exactly, at kbook's own interval, without sleeping.
func TestStill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var l recLogger
		stop := Still(&l, "kube-apiserver")
		time.Sleep(5*stillEvery + stillEvery/2)
		synctest.Wait()
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
		if n != 5 || first != "still building kube-apiserver (1m0s)…" {
			t.Errorf("in 5.5 intervals of %s: %d lines, first %q; want 5, the first at 1m0s", stillEvery, n, first)
		}
		time.Sleep(2 * stillEvery)
		synctest.Wait()
		l.mu.Lock()
		defer l.mu.Unlock()
		if len(l.lines) != n {
			t.Errorf("still printing after stop: %q", l.lines[n:])
		}
	})
}

// recLogger records progress lines.
type recLogger = Lines
