package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/rogpeppe/go-internal/testscript"
)

// breakingTarget is a Breakable target the test loses on purpose.
type breakingTarget struct {
	broken chan struct{}
	once   sync.Once
	mu     sync.Mutex
	err    error
}

var errLostForTest = errors.New("the test's server (pid 1) exited")

func (b *breakingTarget) ID() string { return "breaking" }
func (b *breakingTarget) Conditions() map[string]Condition {
	return map[string]Condition{"cluster": func(string) (bool, string) { return true, "" }}
}
func (b *breakingTarget) Prepare(context.Context, *runbook.Runbook, *testscript.Env) (Session, error) {
	return nopSession{}, nil
}
func (b *breakingTarget) Broken() <-chan struct{} { return b.broken }
func (b *breakingTarget) BrokenErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// lose loses the server; loud closes Broken, as the process watcher does,
// quiet only makes BrokenErr say so, as a process found gone by a look
// before its watcher ran.
func (b *breakingTarget) lose(loud bool) {
	b.mu.Lock()
	b.err = errLostForTest
	b.mu.Unlock()
	if loud {
		b.once.Do(func() { close(b.broken) })
	}
}

type nopSession struct{}

func (nopSession) Diagnose(context.Context) string { return "" }
func (nopSession) Close(context.Context) error     { return nil }

// TestLostTarget loses the target under a runbook: the program it waits
// in is killed, a negated command so ended never makes it pass, a server
// found gone when the runbook ends fails it even if its watcher has not
// told yet, and the runbook after it fails without running.
func TestLostTarget(t *testing.T) {
	for _, tc := range []struct {
		runbook string
		// wait: the runbook writes the waiting program's pid to
		// $STARTED and the test then loses the target.
		wait bool
		want string
	}{
		{"waits.md", true, errLostForTest.Error() + ": "},
		{"negated-last.md", true, "cannot be trusted"},
		{"negated-then.md", true, errLostForTest.Error()},
		{"quiet.md", false, "cannot be trusted"},
	} {
		t.Run(tc.runbook, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "started")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			b := &breakingTarget{broken: make(chan struct{})}
			r, err := New(Options{Parallel: 1, Target: b, Env: []string{"STARTED=" + fifo},
				NeedsTarget: func(*runbook.Runbook) bool { return true },
				Cmds: map[string]func(*testscript.TestScript, bool, []string){
					"lose-quietly": func(*testscript.TestScript, bool, []string) { b.lose(false) },
				}})
			if err != nil {
				t.Fatal(err)
			}
			rbs := load(t, filepath.Join("testdata/lost", tc.runbook), "testdata/lost/z-next.md")
			done := make(chan *report.Report, 1)
			go func() { done <- r.Run(context.Background(), rbs) }()
			waiter := 0
			if tc.wait {
				data, err := os.ReadFile(fifo) // returns once the program wrote
				if err != nil {
					t.Fatal(err)
				}
				if waiter, err = strconv.Atoi(strings.TrimSpace(string(data))); err != nil {
					t.Fatalf("pid %q: %v", data, err)
				}
				b.lose(true)
			}
			rep := <-done
			w, n := rep.Runbooks[0], rep.Runbooks[1]
			if w.Status != report.Failed || !strings.Contains(w.Reason, tc.want) {
				t.Errorf("%s: %s: %s, want failed: ...%s...", tc.runbook, w.Status, w.Reason, tc.want)
			}
			if n.Status != report.Failed || n.Reason != "not run: "+errLostForTest.Error() {
				t.Errorf("the next runbook: %s: %s", n.Status, n.Reason)
			}
			if waiter != 0 && (proc.Process{PID: waiter}).Running() {
				t.Errorf("the waiting program (pid %d) still runs", waiter)
			}
		})
	}
}
