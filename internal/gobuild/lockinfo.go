package gobuild

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/log"
)

// The first build takes minutes, and a second kbook process waits for it:
// the lock file says who holds it and what it is doing, so that the waiting
// process can tell its user (lockFile repeats it every lockReport).
const lockReport = 30 * time.Second

// lockHolder is the content of a held lock file.
type lockHolder struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Started time.Time `json:"started"`
	Doing   string    `json:"doing,omitempty"`
}

// heldLock is a lock taken by lockFile; a nil *heldLock (no locking on
// this system) is valid.
type heldLock struct {
	mu     sync.Mutex
	f      *os.File
	holder lockHolder
	unlock func()
}

// Unlock releases the lock.
func (l *heldLock) Unlock() {
	if l != nil && l.unlock != nil {
		l.unlock()
	}
}

// Logger returns a Logger that records every message in the lock file, as
// what the holder is doing, before passing it on to log.
func (l *heldLock) Logger(log log.Logger) log.Logger {
	if l == nil || l.f == nil {
		return log
	}
	return lockLogger{l: l, log: log}
}

// doing records what the holder does now.
func (l *heldLock) doing(what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holder.Doing = what
	data, _ := json.Marshal(l.holder)
	// Overwrite, then cut: a reader sees one complete JSON value, possibly
	// followed by the end of a longer older one, which it ignores.
	if _, err := l.f.WriteAt(append(data, '\n'), 0); err == nil {
		_ = l.f.Truncate(int64(len(data) + 1))
	}
}

type lockLogger struct {
	l   *heldLock
	log log.Logger
}

func (g lockLogger) Infof(format string, args ...any) {
	g.l.doing(fmt.Sprintf(format, args...))
	g.log.Infof(format, args...)
}

// newHolder describes this process as a lock holder doing what.
func newHolder(what string) lockHolder {
	return lockHolder{PID: os.Getpid(), Command: strings.Join(os.Args, " "), Started: time.Now(), Doing: what}
}

// readHolder reads what the holder of the lock file at path wrote.
func readHolder(path string) (lockHolder, bool) {
	var h lockHolder
	f, err := os.Open(path)
	if err != nil {
		return h, false
	}
	defer f.Close()
	if json.NewDecoder(f).Decode(&h) != nil || h.PID == 0 {
		return h, false
	}
	return h, true
}

// waitMessage says whom a process waits for, what that one is doing and
// for how long, and how long this one has waited already.
func waitMessage(path, what string, waited time.Duration, now time.Time) string {
	h, ok := readHolder(path)
	if !ok {
		msg := "waiting for another kbook process to finish " + what + "…"
		if waited >= time.Second {
			msg += fmt.Sprintf(" (waited %s)", waited.Round(time.Second))
		}
		return msg
	}
	cmd := h.Command
	if len(cmd) > 80 {
		cmd = cmd[:77] + "..."
	}
	msg := fmt.Sprintf("waiting for kbook (pid %d: %s), %s for %s", h.PID, cmd, what, now.Sub(h.Started).Round(time.Second))
	if h.Doing != "" && h.Doing != what {
		msg += "; now " + strings.TrimSuffix(h.Doing, "…")
	}
	if waited >= time.Second {
		msg += fmt.Sprintf("; waited %s", waited.Round(time.Second))
	}
	return msg + "…"
}

// stillEvery is how often a long build says it is still going.
const stillEvery = time.Minute

// Still prints "still building NAME (2m0s)…" to log every stillEvery until
// stop is called (it returns once no more line can come): one build takes up to ten minutes, which must not look
// hung (and a waiting process reads it from the lock, see heldLock.Logger).
func Still(log log.Logger, name string) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(exited)
		t := time.NewTicker(stillEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				log.Infof("still building %s (%s)…", name, time.Since(start).Round(time.Second))
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		<-exited
	}
}
