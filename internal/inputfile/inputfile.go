package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxDocument is the largest runbook, kbook.yaml, values file, policy,
// chain or upgrade config kbook reads: 8 MiB, a hundred times the largest
// real one.
const MaxDocument int64 = 8 << 20

// TooLargeError is a file larger than the bound it was read with.
type TooLargeError struct {
	Path string
	// Size is the file's size; 0 when it is not a regular file and only
	// reading told that it holds more than Max.
	Size, Max int64
}

func (e *TooLargeError) Error() string { return e.Path + ": " + e.Reason() }

// Reason is the message without the path.
func (e *TooLargeError) Reason() string {
	if e.Size == 0 {
		return fmt.Sprintf("more than %s, the most kbook reads from one file", Size(e.Max))
	}
	return fmt.Sprintf("%s, more than the %s kbook reads from one file", Size(e.Size), Size(e.Max))
}

// Size formats a byte count ("100.0 MiB", "8 MiB", "512 B").
func Size(n int64) string {
	const mib, kib = 1 << 20, 1 << 10
	switch {
	case n >= mib && n%mib == 0:
		return fmt.Sprintf("%d MiB", n/mib)
	case n >= mib:
		return fmt.Sprintf("%.1f MiB", float64(n)/mib)
	case n >= kib:
		return fmt.Sprintf("%.1f KiB", float64(n)/kib)
	}
	return fmt.Sprintf("%d B", n)
}

// ReadFile is Read with MaxDocument.
func ReadFile(path string) ([]byte, error) { return Read(path, MaxDocument) }

// Read reads the file at path if it holds at most max bytes; otherwise
// it returns a *TooLargeError, having read nothing of a regular file and
// at most max+1 bytes of anything else (a pipe, a device). Errors opening
// or reading are *fs.PathError, as from os.ReadFile.
func Read(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Mode().IsRegular() && fi.Size() > max {
		return nil, &TooLargeError{Path: path, Size: fi.Size(), Max: max}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Max: max}
	}
	return data, nil
}

// EscapeError is a symbolic link in a tree that points out of it.
type EscapeError struct {
	// Path is the link (under the tree's root as given), Target what it
	// resolves to.
	Path, Target, Root string
	// Loop: the link points at a directory holding it, which a walk that
	// follows links would enter forever.
	Loop bool
}

func (e *EscapeError) Error() string {
	if e.Loop {
		return fmt.Sprintf("%s: a symbolic link to %s, a directory that holds it: kbook does not follow it", e.Path, e.Target)
	}
	return fmt.Sprintf("%s: a symbolic link to %s, outside %s: kbook does not follow it", e.Path, e.Target, e.Root)
}

// CheckTree walks the directory root without following links and
// returns the first problem: a symbolic link that resolves outside root
// (or does not resolve) as an *EscapeError, a regular file larger than
// max as a *TooLargeError. Links inside root are allowed.
func CheckTree(root string, max int64) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	if realRoot, err = filepath.Abs(realRoot); err != nil {
		return err
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				dest, _ := os.Readlink(p)
				return &EscapeError{Path: p, Target: dest + " (which does not resolve)", Root: root}
			}
			if target, err = filepath.Abs(target); err != nil {
				return err
			}
			if !inside(realRoot, target) {
				return &EscapeError{Path: p, Target: target, Root: root}
			}
			realDir, err := filepath.EvalSymlinks(filepath.Dir(p))
			if err != nil {
				return err
			}
			if realDir, err = filepath.Abs(realDir); err != nil {
				return err
			}
			if fi, err := os.Stat(target); err == nil && fi.IsDir() && inside(target, realDir) {
				return &EscapeError{Path: p, Target: target, Root: root, Loop: true}
			}
		case d.Type().IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if fi.Size() > max {
				return &TooLargeError{Path: p, Size: fi.Size(), Max: max}
			}
		}
		return nil
	})
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// IsLimit reports whether err is one of this package's refusals.
func IsLimit(err error) bool {
	var tl *TooLargeError
	var esc *EscapeError
	return errors.As(err, &tl) || errors.As(err, &esc)
}

// MaxChartFile is the largest file of a chart directory: Helm's own bound
// (loader.MaxDecompressedFileSize, also applied to archives), which Helm
// reports without the file's directory.
const MaxChartFile int64 = 5 << 20

// CheckChart checks a chart directory with CheckTree and MaxChartFile
// before Helm's loader reads it; an archive (a file) is left to Helm,
// which bounds each file and the whole.
func CheckChart(path string) error {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return nil // the loader says what is wrong
	}
	if err := CheckTree(path, MaxChartFile); err != nil {
		return fmt.Errorf("chart %s: %w", path, err)
	}
	return nil
}
