package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRead: a file within the bound is read whole; a 100 MB file (sparse:
// no disk is used) is refused from its size without being read.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		size int64
		want string // "" reads
	}{
		{"small.md", 10, ""},
		{"exact.md", 1 << 10, ""},
		{"over.md", 1<<10 + 1, "over.md: 1.0 KiB, more than the 1.0 KiB kbook reads from one file"},
		{"huge.md", 100 << 20, "huge.md: 100 MiB, more than the 1.0 KiB kbook reads from one file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, tc.size); err != nil {
				t.Fatal(err)
			}
			data, err := Read(p, 1<<10)
			if tc.want == "" {
				if err != nil || int64(len(data)) != tc.size {
					t.Fatalf("%d bytes, %v", len(data), err)
				}
				return
			}
			var tl *TooLargeError
			if !errors.As(err, &tl) || !strings.HasSuffix(err.Error(), tc.want) || data != nil {
				t.Fatalf("%v, want ...%s", err, tc.want)
			}
		})
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestReadNotRegular: what is not a regular file (its size says nothing)
// is read up to the bound and refused past it.
func TestReadNotRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero")
	}
	_, err := Read("/dev/zero", 1<<20)
	if err == nil || err.Error() != "/dev/zero: more than 1 MiB, the most kbook reads from one file" {
		t.Fatalf("%v", err)
	}
}

// TestCheckTree builds chart-like trees with links and big files.
func TestCheckTree(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		links map[string]string // link -> target
		big   string            // a file of 100 MB
		want  string            // "" passes
	}{
		{name: "plain"},
		{name: "link inside", links: map[string]string{"templates/b.yaml": "a.yaml"}},
		{name: "link to a dir inside", links: map[string]string{"more": "templates"}},
		{name: "absolute link out", links: map[string]string{"templates/b.yaml": outside}, want: "templates/b.yaml: a symbolic link to " + outside + ", outside "},
		{name: "relative link out", links: map[string]string{"templates/b.yaml": "../../" + filepath.Base(filepath.Dir(outside)) + "/secret"}, want: "outside"},
		{name: "dangling", links: map[string]string{"templates/b.yaml": "nowhere.yaml"}, want: "(which does not resolve)"},
		{name: "loop", links: map[string]string{"templates/again": ".."}, want: "a directory that holds it"},
		{name: "big file", big: "values.yaml", want: "values.yaml: 100 MiB, more than the 5 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "chart")
			if err := os.MkdirAll(filepath.Join(root, "templates"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "templates", "a.yaml"), []byte("a: 1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for link, target := range tc.links {
				if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
					t.Skip("no symbolic links here:", err)
				}
			}
			if tc.big != "" {
				p := filepath.Join(root, tc.big)
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(p, 100<<20); err != nil {
					t.Fatal(err)
				}
			}
			err := CheckTree(root, 5<<20)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !IsLimit(err) {
				t.Fatalf("%v, want ...%s...", err, tc.want)
			}
		})
	}
}
