package plane

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/gobuild"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/supervisor"
)

func TestMain(m *testing.M) {
	code := m.Run()
	server.Stop() // the API server of the plane tests, if one started
	os.Exit(code)
}

// lines keeps what a Logger is told.
type lines = gobuild.Lines

// alive says whether pid runs (a zombie does not).
func alive(pid int) bool {
	_, err := proc.Inspect(pid)
	return err == nil
}

// TestPlaneDown: a plane without a supervisor (API only) is never down;
// its supervisor giving up on a controller is told as the plane's.
func TestPlaneDown(t *testing.T) {
	if down, why := (&Plane{}).Down(); down != nil || why() != nil {
		t.Errorf("an API-only plane's Down() = %v, %v", down, why())
	}
	de := &supervisor.DownError{Name: "crash", Exit: "exit status 3", Restarts: 2, LogPath: "/logs/crash.log"}
	err := error(&planeDown{de})
	if !errors.Is(err, de) || !strings.HasPrefix(err.Error(), "the k0rdent controller crash exited (exit status 3) after 2 restarts") || !strings.Contains(err.Error(), "the next run starts a new plane") {
		t.Errorf("the plane's reason: %v", err)
	}
}

// TestCAPDPortTaken: a second plane on the machine is refused before it
// starts anything, naming the port and what to check.
func TestCAPDPortTaken(t *testing.T) {
	// It holds CAPD's port a moment: a plane another test binary starts
	// meanwhile (go test ./... runs packages in parallel) would fail. With
	// -short it does not wait for a plane that runs (a soak's, a
	// --k0rdent run's) but skips, saying so.
	ctx := context.Background()
	if testing.Short() {
		tried, cancel := context.WithCancel(ctx)
		cancel() // LockMachine tries once, then returns
		ctx = tried
	}
	unlock, err := LockMachine(ctx, func(msg string) { t.Log(msg) })
	if err != nil && testing.Short() {
		t.Skipf("a local k0rdent plane runs on this machine (-short does not wait for it): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(capdDebugPort)) // even one address blocks CAPD's

	if err != nil {
		t.Skipf("port %d is already taken on this machine (a running plane?): %v", capdDebugPort, err)
	}
	defer l.Close()
	err = capdPortFree()
	if err == nil || !strings.Contains(err.Error(), "port 19000 is in use") || !strings.Contains(err.Error(), "kbook cluster status") {
		t.Fatalf("capdPortFree() = %v, want the port named and a hint", err)
	}
	l.Close()
	if err := capdPortFree(); err != nil {
		t.Errorf("capdPortFree() on a free port = %v", err)
	}
}

// TestReleaseNotReadyYet: only kcm's webhook refusing the Management for a
// Release its cache still sees not ready is retried.
func TestReleaseNotReadyYet(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{errors.New(`admission webhook "validation.management.k0rdent.mirantis.com" denied the request: release "kcm-1-11-0" status is not ready`), true},
		{errors.New(`admission webhook "validation.management.k0rdent.mirantis.com" denied the request: provider x is required`), false},
		{errors.New(`connection refused`), false},
	} {
		if got := releaseNotReadyYet(tc.err); got != tc.want {
			t.Errorf("releaseNotReadyYet(%q) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestPlanePorts: the plane's ports are distinct, inside their range
// (outside the kernel's ephemeral one), never one that is taken, and too
// few free ones is an error naming the range.
func TestPlanePorts(t *testing.T) {
	if planePortLow >= 32768 || planePortHigh > capdDebugPort {
		t.Fatalf("plane ports [%d, %d) overlap the ephemeral range or CAPD's ports", planePortLow, planePortHigh)
	}
	const low, high = 18900, 18950
	// Taken: by this test, or by someone else if it cannot listen there.
	taken := map[int]bool{}
	for p := low; p < low+3; p++ {
		if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
			defer l.Close()
		}
		taken[p] = true
	}
	if got, err := planePorts(1, low, low+3); err == nil || !strings.Contains(err.Error(), "between 18900 and 18902") {
		t.Errorf("planePorts of a taken range = %v, %v; want an error naming the range", got, err)
	}
	got, err := planePorts(5, low, high)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range got {
		if p < low || p >= high || seen[p] || taken[p] {
			t.Errorf("planePorts(5, %d, %d) = %v: %d is outside, twice or taken", low, high, got, p)
		}
		seen[p] = true
	}
	if len(got) != 5 {
		t.Errorf("planePorts(5, ...) gave %d ports", len(got))
	}
}
