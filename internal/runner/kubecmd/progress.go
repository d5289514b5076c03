package kubecmd

import (
	"fmt"
	"time"
)

// When a waiting command tells Client.Progress: first after waitFirst, then
// every waitEvery, so that a wait that ends soon says nothing.
const (
	waitFirst = 5 * time.Second
	waitEvery = 10 * time.Second
)

// waiter tells Client.Progress that a command is still waiting, and for
// what: "assert still waiting (5s of 30s) for pod/web: .status.phase: want
// Running, got Pending".
type waiter struct {
	c       *Client
	cmd     string
	timeout time.Duration
	start   time.Time
	next    time.Duration
}

func (c *Client) waiter(cmd string, timeout time.Duration) *waiter {
	return &waiter{c: c, cmd: cmd, timeout: timeout, start: time.Now(), next: waitFirst}
}

// tell reports what the command waits for and last saw, if it is time to.
func (w *waiter) tell(what, seen string) {
	if w.c.Progress == nil {
		return
	}
	waited := time.Since(w.start)
	if waited < w.next {
		return
	}
	for w.next <= waited {
		w.next += waitEvery
	}
	msg := fmt.Sprintf("%s still waiting (%s of %s, --timeout to change) %s", w.cmd, waited.Round(time.Second), w.timeout, what)
	if seen != "" {
		msg += ": " + seen
	}
	w.c.Progress(msg)
}
