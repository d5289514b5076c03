package runner

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/k0rdent/kbook/internal/report"
)

// dirLog records what a run tracks.
type dirLog struct {
	mu              sync.Mutex
	tracked, forgot []string
}

func (d *dirLog) TrackDir(p string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tracked = append(d.tracked, p)
	return nil
}

func (d *dirLog) ForgetDir(p string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.forgot = append(d.forgot, p)
}

// TestWorkspace: a run makes one work root for its runbooks, tracked
// while it exists and removed at the run's end; with KeepWork each
// runbook's $WORK stays, in the run's root, and its result names it.
func TestWorkspace(t *testing.T) {
	parent := t.TempDir()
	dirs := &dirLog{}
	r, err := New(Options{Parallel: 2, WorkRoot: parent, Dirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Run(context.Background(), load(t, "testdata/pass.md", "testdata/shell/state.md"))
	for _, res := range rep.Runbooks {
		if res.Status != report.Passed {
			t.Fatalf("%s:\n%s", res.Path, dumpResult(res))
		}
	}
	if len(dirs.tracked) != 1 || len(dirs.forgot) != 1 || dirs.forgot[0] != dirs.tracked[0] || filepath.Dir(dirs.tracked[0]) != parent {
		t.Errorf("tracked %q, forgot %q: want one root in %s, forgotten", dirs.tracked, dirs.forgot, parent)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Errorf("left in the work root's folder: %v", left)
	}

	r, err = New(Options{Parallel: 2, WorkRoot: parent, KeepWork: true})
	if err != nil {
		t.Fatal(err)
	}
	rep = r.Run(context.Background(), load(t, "testdata/pass.md", "testdata/shell/state.md"))
	var roots []string
	for _, res := range rep.Runbooks {
		if fi, err := os.Stat(filepath.Join(res.WorkDir, ".tmp")); err != nil || !fi.IsDir() {
			t.Errorf("%s: kept work directory %q is not its $WORK: %v", res.Path, res.WorkDir, err)
		}
		roots = append(roots, filepath.Dir(res.WorkDir))
	}
	if len(roots) != 2 || roots[0] != roots[1] || roots[0] == rep.Runbooks[0].WorkDir {
		t.Errorf("kept work directories %q: want two, in one root", roots)
	}
}
