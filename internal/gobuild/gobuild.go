package gobuild

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// CheckBinary returns "" if p is an executable file, else what is wrong.
func CheckBinary(p string) string {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case err != nil:
		return err.Error()
	case !fi.Mode().IsRegular():
		return "not a regular file"
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return "not executable"
	}
	return ""
}

// ExtractTxt writes the tree root of fsys to target with the .txt suffix
// removed from every file name: go:embed refuses a folder holding a go.mod,
// and the suffix keeps embedded main packages out of kbook's build.
func ExtractTxt(fsys fs.ReadFileFS, root, target string) error {
	return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, root), ".txt")
		out := filepath.Join(target, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := fsys.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
}

// Env is the environment of go build: the caller's, building a static
// binary for this machine (the cache dir is named after it) outside any
// go.work. The builds pass no flag that changes how a package compiles
// (no -trimpath; -ldflags only links), so a dependency they share, at the
// same version, with an earlier CGO_ENABLED=0 build in the same GOCACHE (kbook's
// own under `make test`, the local API server's for the controllers) is
// compiled once.
func Env() []string {
	return append(os.Environ(),
		"CGO_ENABLED=0",
		"GOWORK=off",
		"GOOS="+runtime.GOOS,
		"GOARCH="+runtime.GOARCH,
	)
}

// Tail returns the last n bytes of s, starting at a line.
func Tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return "…\n" + s
}

// Lines is a Logger that keeps every message, for a caller that shows
// progress later (and for tests that check what was said). The zero value
// is ready; it is safe for concurrent use.
type Lines struct {
	mu    sync.Mutex
	lines []string
}

// Infof keeps one message.
func (l *Lines) Infof(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

// String is the messages so far, one a line.
func (l *Lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// HashTree is the content hash (SHA-256, hex) of the files below root in
// fsys: each file's path and the hash of its content, in walk order. What
// is built from an embedded tree is cached under it.
func HashTree(fsys fs.ReadFileFS, root string) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fsys.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %x\n", p, sha256.Sum256(b))
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}
