package testctx

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Grace is how long before go test's -timeout the context ends: time for
// the step that waited to fail with its own message and for the test's
// cleanup (stopping servers, deleting objects) to run.
const Grace = 30 * time.Second

// New returns a context that ends Grace before t's deadline (go test
// -timeout; none with -timeout 0) and its cancel function. Like
// context.WithTimeout's, the context outlives t's Cleanup functions
// registered after New, so they can use it.
func New(t *testing.T) (context.Context, context.CancelFunc) {
	t.Helper()
	d, ok := t.Deadline()
	if !ok {
		return context.WithCancel(context.Background())
	}
	return context.WithDeadline(context.Background(), d.Add(-Grace))
}

// LoadAverage is the machine's one-minute load average (0 where
// /proc/loadavg is not): benchmarks report it beside their ratios, which
// mean little without the load they were measured at.
func LoadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
