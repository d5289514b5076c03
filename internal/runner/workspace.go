package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// workspace is a run's work root: the folder, made when the first
// runbook runs, in which each runbook's $WORK is made (and removed when
// the runbook ends), and which goes with the run. One folder for the run,
// not one per runbook, and scripts kept in memory, spare each runbook
// a folder and a file made and removed, and the record of a tracked
// folder: on a slow disk that was a third of a short page's time.
type workspace struct {
	parent string     // where the root is made ("": os.TempDir())
	dirs   DirTracker // records the root while it exists; nil: untracked
	keep   bool       // --keep-work: nothing is removed

	mu      sync.Mutex
	root    string // symbolic links resolved, as testscript resolves them
	tracked string // the root as dirs records it
	err     error
	seq     int

	removing sync.WaitGroup           // runbooks' $WORK being removed (removeLater)
	removed  map[string]chan struct{} // by $WORK, closed once it is removed
}

// removeLater removes a runbook's $WORK in the background: removing a
// few folders takes a good part of a millisecond on a slow disk, which
// the runbook's result and the next runbook's start overlap. close waits
// for it, and so does a script that would have the same $WORK (script).
func (w *workspace) removeLater(dir string) {
	done := make(chan struct{})
	w.mu.Lock()
	if w.removed == nil {
		w.removed = map[string]chan struct{}{}
	}
	w.removed[dir] = done
	w.mu.Unlock()
	w.removing.Go(func() {
		os.RemoveAll(dir)
		w.mu.Lock()
		delete(w.removed, dir)
		w.mu.Unlock()
		close(done)
	})
}

// waitRemoved waits until dir, if removeLater removes it, is gone.
func (w *workspace) waitRemoved(dir string) {
	w.mu.Lock()
	done := w.removed[dir]
	w.mu.Unlock()
	if done != nil {
		<-done
	}
}

// dir returns the run's root, made on the first call.
func (w *workspace) dir() (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.root != "" || w.err != nil {
		return w.root, w.err
	}
	root, err := os.MkdirTemp(w.parent, "kbook-")
	if err == nil && w.dirs != nil && !w.keep {
		if err = w.dirs.TrackDir(root); err != nil {
			os.RemoveAll(root)
		} else {
			w.tracked = root
		}
	}
	if err == nil {
		var real string
		if real, err = filepath.EvalSymlinks(root); err == nil {
			root = real
		}
	}
	w.root, w.err = root, err
	return w.root, w.err
}

// script keeps a runbook's testscript archive where testscript reads it:
// in memory where it can, else (and with --keep-work, to be looked at) in
// a file in the root named after the runbook. name is the script's name
// as testscript takes it (its $WORK is the root's script-NAME, unique in
// the run); done frees or removes it.
func (w *workspace) script(runbook string, archive []byte) (path, name string, done func(), err error) {
	if !w.keep {
		if f, at, ok := blocksInMemory(); ok {
			if _, err := f.Write(archive); err != nil {
				f.Close()
				return "", "", nil, err
			}
			// The name is the memfd's descriptor, which an earlier
			// runbook's script may have had: its $WORK must be gone.
			name := filepath.Base(at)
			w.waitRemoved(filepath.Join(w.root, "script-"+name))
			return at, name, func() { f.Close() }, nil
		}
	}
	w.mu.Lock()
	w.seq++
	name = fmt.Sprintf("%s-%d", scriptName(runbook), w.seq)
	w.mu.Unlock()
	path = filepath.Join(w.root, name+".txtar")
	if err := os.WriteFile(path, archive, 0o644); err != nil {
		return "", "", nil, err
	}
	if w.keep {
		return path, name, func() {}, nil
	}
	return path, name, func() { os.Remove(path) }, nil
}

// close removes the root, unless the run keeps its work.
func (w *workspace) close() {
	w.removing.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.root == "" || w.keep {
		return
	}
	if os.Remove(w.root) != nil {
		// Not empty: what a runbook's processes left, or a script
		// file (--keep-work keeps them all).
		os.RemoveAll(w.root)
	}
	if w.tracked != "" {
		w.dirs.ForgetDir(w.tracked)
	}
}
