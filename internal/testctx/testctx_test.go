package testctx

import (
	"context"
	"testing"
)

// TestNew: the context ends Grace before the binary's deadline, or never
// by itself without one; cancel ends it.
func TestNew(t *testing.T) {
	ctx, cancel := New(t)
	d, ok := t.Deadline()
	got, gotOK := ctx.Deadline()
	if gotOK != ok {
		t.Fatalf("context deadline set = %v, test deadline set = %v", gotOK, ok)
	}
	if ok && !got.Equal(d.Add(-Grace)) {
		t.Errorf("deadline %v, want %v (test deadline less %v)", got, d.Add(-Grace), Grace)
	}
	if ctx.Err() != nil {
		t.Fatalf("ended before cancel: %v", ctx.Err())
	}
	cancel()
	if ctx.Err() != context.Canceled {
		t.Fatalf("after cancel: %v, want %v", ctx.Err(), context.Canceled)
	}
}
