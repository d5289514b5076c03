package site

import (
	"errors"
	"os"
	"sync"
	"time"

	"github.com/spf13/afero"
)

// errFenced is what every file operation of an abandoned in-process Hugo
// build gets once Render has returned.
var errFenced = errors.New("the build was stopped")

// fence is the file system an in-process Hugo build writes through: once
// closed, no operation runs any more - each fails with errFenced - and
// closing waits for the ones under way. Hugo cannot be stopped in the
// middle of a build (it takes no context), so an interrupted or timed-out
// build is abandoned to end on its own; the fence makes sure it writes
// nothing after Render returned and removed its staging folder.
type fence struct {
	afero.Fs
	mu     sync.RWMutex
	closed bool
	// wrote, when set (tests), hears each name written or made.
	wrote func(name string)
}

func newFence(fs afero.Fs) *fence { return &fence{Fs: fs} }

// close fences the build off: when it returns no operation is under way
// and none will start.
func (f *fence) close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
}

// enter starts an operation; leave (when ok) ends it.
func (f *fence) enter() bool {
	f.mu.RLock()
	if f.closed {
		f.mu.RUnlock()
		return false
	}
	return true
}

func (f *fence) leave() { f.mu.RUnlock() }

func (f *fence) written(name string) {
	if f.wrote != nil {
		f.wrote(name)
	}
}

func (f *fence) file(file afero.File, err error) (afero.File, error) {
	if err != nil {
		return nil, err
	}
	return &fencedFile{File: file, f: f}, nil
}

// guard runs op on name unless the fence is closed; written says op
// writes name (the test hook hears it).
func (f *fence) guard(op, name string, written bool, do func() error) error {
	if !f.enter() {
		return &os.PathError{Op: op, Path: name, Err: errFenced}
	}
	defer f.leave()
	if written {
		f.written(name)
	}
	return do()
}

func (f *fence) Create(name string) (file afero.File, err error) {
	err = f.guard("create", name, true, func() error { file, err = f.file(f.Fs.Create(name)); return err })
	return file, err
}

func (f *fence) Mkdir(name string, perm os.FileMode) error {
	return f.guard("mkdir", name, true, func() error { return f.Fs.Mkdir(name, perm) })
}

func (f *fence) MkdirAll(path string, perm os.FileMode) error {
	return f.guard("mkdir", path, true, func() error { return f.Fs.MkdirAll(path, perm) })
}

// Open opens for reading: the file is left as it is (Hugo asks it for
// ReadDir and more).
func (f *fence) Open(name string) (file afero.File, err error) {
	err = f.guard("open", name, false, func() error { file, err = f.Fs.Open(name); return err })
	return file, err
}

func (f *fence) OpenFile(name string, flag int, perm os.FileMode) (file afero.File, err error) {
	writes := flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0
	err = f.guard("open", name, writes, func() error {
		if file, err = f.Fs.OpenFile(name, flag, perm); writes {
			file, err = f.file(file, err)
		}
		return err
	})
	return file, err
}

func (f *fence) Remove(name string) error {
	return f.guard("remove", name, false, func() error { return f.Fs.Remove(name) })
}

func (f *fence) RemoveAll(path string) error {
	return f.guard("removeall", path, false, func() error { return f.Fs.RemoveAll(path) })
}

func (f *fence) Rename(oldname, newname string) error {
	return f.guard("rename", newname, true, func() error { return f.Fs.Rename(oldname, newname) })
}

func (f *fence) Stat(name string) (fi os.FileInfo, err error) {
	err = f.guard("stat", name, false, func() error { fi, err = f.Fs.Stat(name); return err })
	return fi, err
}

func (f *fence) Chmod(name string, mode os.FileMode) error {
	return f.guard("chmod", name, false, func() error { return f.Fs.Chmod(name, mode) })
}

func (f *fence) Chown(name string, uid, gid int) error {
	return f.guard("chown", name, false, func() error { return f.Fs.Chown(name, uid, gid) })
}

func (f *fence) Chtimes(name string, atime, mtime time.Time) error {
	return f.guard("chtimes", name, false, func() error { return f.Fs.Chtimes(name, atime, mtime) })
}

// LstatIfPossible keeps what the wrapped file system offers (Hugo asks).
func (f *fence) LstatIfPossible(name string) (fi os.FileInfo, lstat bool, err error) {
	err = f.guard("lstat", name, false, func() error {
		if l, ok := f.Fs.(afero.Lstater); ok {
			fi, lstat, err = l.LstatIfPossible(name)
		} else {
			fi, err = f.Fs.Stat(name)
		}
		return err
	})
	return fi, lstat, err
}

func (f *fence) Name() string { return "fence(" + f.Fs.Name() + ")" }

// UnwrapFilesystem lets Hugo see the operating system's file system
// underneath (hugofs.IsOsFs), as it does without the fence.
func (f *fence) UnwrapFilesystem() afero.Fs { return f.Fs }

// fencedFile is a file opened for writing through a fence: it writes only
// while the fence is open.
type fencedFile struct {
	afero.File
	f *fence
}

func (w *fencedFile) Write(p []byte) (n int, err error) {
	err = w.f.guard("write", w.Name(), false, func() error { n, err = w.File.Write(p); return err })
	return n, err
}

func (w *fencedFile) WriteAt(p []byte, off int64) (n int, err error) {
	err = w.f.guard("write", w.Name(), false, func() error { n, err = w.File.WriteAt(p, off); return err })
	return n, err
}

func (w *fencedFile) WriteString(s string) (n int, err error) {
	err = w.f.guard("write", w.Name(), false, func() error { n, err = w.File.WriteString(s); return err })
	return n, err
}

func (w *fencedFile) Truncate(size int64) error {
	return w.f.guard("truncate", w.Name(), false, func() error { return w.File.Truncate(size) })
}

func (w *fencedFile) Sync() error {
	return w.f.guard("sync", w.Name(), false, func() error { return w.File.Sync() })
}
