package kubecmd

import (
	"testing"
	"time"
)

// TestWaiter: a waiting command speaks first after waitFirst, then once
// every waitEvery, never without a Progress func.
func TestWaiter(t *testing.T) {
	var got []string
	c := &Client{Progress: func(msg string) { got = append(got, msg) }}
	w := c.waiter("assert", 30*time.Second)
	w.tell("for pod/web", "not found")
	if len(got) != 0 {
		t.Fatalf("told before %s: %q", waitFirst, got)
	}
	w.start = time.Now().Add(-waitFirst - 100*time.Millisecond)
	w.tell("for pod/web", "not found")
	w.tell("for pod/web", "not found")
	if want := "assert still waiting (5s of 30s, --timeout to change) for pod/web: not found"; len(got) != 1 || got[0] != want {
		t.Fatalf("after %s: %q, want [%q]", waitFirst, got, want)
	}
	w.start = time.Now().Add(-waitFirst - waitEvery - 100*time.Millisecond)
	w.tell("for pod/web", "")
	if want := "assert still waiting (15s of 30s, --timeout to change) for pod/web"; len(got) != 2 || got[1] != want {
		t.Fatalf("after %s: %q, want %q last", waitFirst+waitEvery, got, want)
	}
	(&Client{}).waiter("await", time.Second).tell("x", "y") // no Progress: nothing to do
}
