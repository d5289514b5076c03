package runner

import (
	"context"
	"fmt"
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

// TestWorkspaceRemovedBeforeReuse: a runbook's $WORK is removed in the
// background, and a later script whose name is the same (a memfd's
// descriptor, free again) waits until it is gone: the next runbook's
// $WORK is never removed under it. Pages one after another all pass.
func TestWorkspaceRemovedBeforeReuse(t *testing.T) {
	w := &workspace{parent: t.TempDir()}
	root, err := w.dir()
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(root, "script-9")
	if err := os.MkdirAll(filepath.Join(work, ".home", "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.removeLater(work)
	w.waitRemoved(work)
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Errorf("%s after waitRemoved: %v", work, err)
	}
	w.close()

	var pages []string
	for i := range 30 {
		pages = append(pages, pageFile(t, fmt.Sprintf("p%d.md", i), "# P\n\n```testscript\nexec true\nmkdir a/b\nexists a/b\n```\n"))
	}
	r, err := New(Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range r.Run(context.Background(), load(t, pages...)).Runbooks {
		if res.Status != report.Passed {
			t.Fatalf("%s:\n%s", res.Path, dumpResult(res))
		}
	}
}
