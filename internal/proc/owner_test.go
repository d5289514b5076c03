package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type notes []string

func (n *notes) Infof(format string, args ...any) { *n = append(*n, fmt.Sprintf(format, args...)) }

// TestOwn: the registry Own opens is the current one until closed, and
// closing removes it; an unusable root leaves kbook untracked, saying so.
func TestOwn(t *testing.T) {
	root := t.TempDir()
	var log notes
	reg, closeReg := Own(root, &log)
	if reg == nil {
		t.Fatalf("no registry: %v", log)
	}
	current.mu.Lock()
	cur := current.reg
	current.mu.Unlock()
	if cur != reg {
		t.Errorf("current registry %p, want %p", cur, reg)
	}
	dir, err := reg.MkdirTemp("owned-")
	if err != nil {
		t.Fatal(err)
	}
	closeReg()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s outlived its registry: %v", dir, err)
	}
	current.mu.Lock()
	cur = current.reg
	current.mu.Unlock()
	if cur != nil || len(log) != 0 {
		t.Errorf("after close: current %p, notes %q", cur, log)
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	reg, closeReg = Own(filepath.Join(file, "procs"), &log)
	closeReg()
	if reg != nil || len(log) == 0 || !strings.Contains(log[len(log)-1], "not tracked") {
		t.Errorf("unusable root: registry %v, notes %q", reg, log)
	}
}

// TestOpener: a nil Opener tracks nothing; OwnUnder opens this process's
// registry under the root it reads when opened; Opened hands out a
// registry already open and leaves closing it to its owner.
func TestOpener(t *testing.T) {
	var none Opener
	reg, closeReg := none.Open(nil)
	closeReg()
	if reg != nil {
		t.Errorf("nil Opener: registry %v, want none", reg)
	}

	root := ""
	own := OwnUnder(func() string { return root })
	root = t.TempDir()
	var log notes
	reg, closeReg = own.Open(&log)
	if reg == nil {
		t.Fatalf("OwnUnder: no registry: %v", log)
	}
	dir, err := reg.MkdirTemp("opened-")
	if err != nil {
		t.Fatal(err)
	}
	shared, closeShared := Opened(reg).Open(nil)
	closeShared()
	if shared != reg {
		t.Errorf("Opened: registry %p, want %p", shared, reg)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the close of Opened removed %s: %v", dir, err)
	}
	closeReg()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s outlived the registry OwnUnder opened: %v", dir, err)
	}
	if !strings.HasPrefix(dir, root) {
		t.Errorf("%s is not under the root read at Open, %s", dir, root)
	}
}
