package site

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tree maps every file under dir to its sha256.
func tree(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = sha256.Sum256(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBuildDiskFull builds a site into a small tmpfs, fills it so that
// the next build runs out of space halfway, and checks that the build
// fails with the system's "no space left on device" naming a file, and
// that the published site - every file of it - is as it was, with no
// temporary folder left.
func TestBuildDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a tmpfs and builds a site twice")
	}
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=64m"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root on Linux): %v", err)
	}
	defer syscall.Unmount(mnt, syscall.MNT_DETACH)
	out := filepath.Join(mnt, "public")
	dir := fixture(t)
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Render(context.Background(), []*Version{{Name: "v0.1", Aliases: []string{"latest"}, Project: p}}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, out)
	var used int64
	_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				used += fi.Size()
			}
		}
		return nil
	})

	// Leave a part of what a build takes, from a quarter of the site's
	// size to three times it: each build starts, then runs out of space
	// at another point (the theme, Hugo's pages, the search index,
	// verification.json) - or, with room enough, succeeds and becomes
	// the site the next one must leave intact.
	failed := 0
	for i, leave := range []int64{used / 4, used / 2, used, 2 * used, 9 * used / 4, 5 * used / 2, 11 * used / 4, 3 * used} {
		_ = os.Remove(filepath.Join(mnt, "filler"))
		var st syscall.Statfs_t
		if err := syscall.Statfs(mnt, &st); err != nil {
			t.Fatal(err)
		}
		if free := int64(st.Bavail) * st.Bsize; free > leave {
			filler, err := os.Create(filepath.Join(mnt, "filler"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := filler.Write(make([]byte, free-leave)); err != nil {
				t.Fatalf("fill the tmpfs: %v", err)
			}
			filler.Close()
		}
		// A changed page: the new build differs from the published one.
		page := filepath.Join(dir, "content", "_index.md")
		if err := os.WriteFile(page, append([]byte(read(t, page)), fmt.Sprintf("\nParagraph %d.\n", i)...), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Render(context.Background(), []*Version{{Name: "v0.1", Aliases: []string{"latest"}, Project: p}}, Options{Out: out})
		t.Logf("%d bytes free: %v", leave, err)
		if err == nil {
			before = tree(t, out)
			continue
		}
		failed++
		if !errors.Is(err, syscall.ENOSPC) && !strings.Contains(err.Error(), "no space left on device") {
			t.Fatalf("build on a full disk = %v, want no space left on device", err)
		}
		after := tree(t, out)
		for f, sum := range before {
			if got, ok := after[f]; !ok {
				t.Errorf("%s is gone after the failed build", f)
			} else if got != sum {
				t.Errorf("%s changed after the failed build", f)
			}
		}
		for f := range after {
			if _, ok := before[f]; !ok {
				t.Errorf("%s was left by the failed build", f)
			}
		}
	}
	if failed == 0 {
		t.Error("no build ran out of space: the tmpfs was never full")
	}
}
