package cache

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/report"
)

// TestCorruptEntry: a truncated, garbled or empty entry is a miss with an
// error naming the file, and Put rewrites it.
func TestCorruptEntry(t *testing.T) {
	good := &report.Runbook{Path: "a.md", Status: report.Passed, Duration: time.Second}
	data, _ := os.ReadFile("testdata/entry.json")
	for _, tc := range []struct{ name, content string }{
		{"truncated", string(data[:len(data)/2])},
		{"garbage", "\x00\x01not json"},
		{"empty", ""},
		{"other json", `{"hello": "world"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			sum := Key{Path: "a.md", Source: []byte(tc.name)}.Sum()
			if err := os.MkdirAll(filepath.Dir(c.file(sum)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(c.file(sum), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, ok, err := c.Lookup(sum)
			if ok || err == nil || !strings.Contains(err.Error(), c.file(sum)) || !strings.Contains(err.Error(), "rewritten") {
				t.Fatalf("Lookup of a %s entry = %v, %v; want a miss and an error naming the file", tc.name, ok, err)
			}
			if err := c.Put(sum, good); err != nil {
				t.Fatal(err)
			}
			got, ok, err := c.Lookup(sum)
			if !ok || err != nil || got.Path != "a.md" {
				t.Errorf("after Put: %+v, %v, %v", got, ok, err)
			}
		})
	}
}

// TestEntryFixtureReads keeps testdata/entry.json a valid entry.
func TestEntryFixtureReads(t *testing.T) {
	c, _ := Open(t.TempDir())
	data, err := os.ReadFile("testdata/entry.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := Key{Path: "x"}.Sum()
	_ = os.MkdirAll(filepath.Dir(c.file(sum)), 0o755)
	_ = os.WriteFile(c.file(sum), data, 0o644)
	if _, ok, err := c.Lookup(sum); !ok || err != nil {
		t.Fatalf("fixture: %v %v", ok, err)
	}
}

// TestConcurrentProcesses: several processes writing and reading one
// cache at once (two kbook runs) each read back whole entries, never a
// torn one, and the durations file stays valid JSON.
func TestConcurrentProcesses(t *testing.T) {
	if dir := os.Getenv("KBOOK_CACHE_WRITER"); dir != "" {
		c, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		me := os.Getenv("KBOOK_CACHE_ID")
		for i := range 200 {
			sum := Key{Path: fmt.Sprint("rb", i%10)}.Sum() // both processes write the same 10 keys
			rb := &report.Runbook{Path: fmt.Sprint("rb", i%10), Status: report.Passed, Reason: strings.Repeat(me, 2000), Duration: time.Duration(i)}
			if err := c.Put(sum, rb); err != nil {
				t.Fatal(err)
			}
			if _, ok, err := c.Lookup(sum); !ok || err != nil {
				t.Fatalf("read back %s: %v %v", sum, ok, err)
			}
		}
		return
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	exe, _ := os.Executable()
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, id := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run", "^TestConcurrentProcesses$", "-test.count=1")
			cmd.Env = append(os.Environ(), "KBOOK_CACHE_WRITER="+dir, "KBOOK_CACHE_ID="+id)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer %s: %v\n%s", id, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c, _ := Open(dir)
	for i := range 10 {
		rb, ok, err := c.Lookup(Key{Path: fmt.Sprint("rb", i)}.Sum())
		if !ok || err != nil || (strings.Trim(rb.Reason, "a") != "" && strings.Trim(rb.Reason, "b") != "") {
			t.Errorf("entry %d: ok %v, err %v: torn or lost", i, ok, err)
		}
	}
	if len(c.Durations()) == 0 {
		t.Error("durations.json unreadable after concurrent writers")
	}
}

// TestDiskFull: writing the cache on a full file system fails with a
// clear error (ENOSPC, the file named) and leaves the entry that was
// there whole. It mounts a 1 MiB tmpfs, so it needs root; it skips with
// the reason otherwise.
func TestDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a tmpfs")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root on Linux): %v", err)
	}
	defer syscall.Unmount(dir, syscall.MNT_DETACH)
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := Key{Path: "a.md"}.Sum()
	old := &report.Runbook{Path: "a.md", Status: report.Passed, Reason: "old"}
	if err := c.Put(sum, old); err != nil {
		t.Fatal(err)
	}
	// Fill the file system.
	filler, _ := os.Create(filepath.Join(dir, "filler"))
	_, _ = filler.Write(make([]byte, 2<<20))
	filler.Close()
	big := &report.Runbook{Path: "a.md", Status: report.Passed, Reason: strings.Repeat("x", 512<<10)}
	err = c.Put(sum, big)
	if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), c.file(sum)) {
		t.Fatalf("Put on a full disk = %v, want ENOSPC naming %s", err, c.file(sum))
	}
	got, ok, err := c.Lookup(sum)
	if !ok || err != nil || got.Reason != "old" {
		t.Errorf("the previous entry after a failed write: %+v %v %v", got, ok, err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(c.file(sum)), ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}
