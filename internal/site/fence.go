package site

import (
	"errors"
	"os"
	"sync"
	"time"

	"github.com/spf13/afero"
)

// errFenced is what every file operation of an abandoned in-process Hugo
// build gets once Build has returned.
var errFenced = errors.New("the build was stopped")

// fence is the file system an in-process Hugo build writes through: once
// closed, no operation runs any more - each fails with errFenced - and
// closing waits for the ones under way. Hugo cannot be stopped in the
// middle of a build (it takes no context), so an interrupted or timed-out
// build is abandoned to end on its own; the fence makes sure it writes
// nothing after Build returned and removed its staging folder.
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

func (f *fence) Create(name string) (afero.File, error) {
	if !f.enter() {
		return nil, &os.PathError{Op: "create", Path: name, Err: errFenced}
	}
	defer f.leave()
	f.written(name)
	return f.file(f.Fs.Create(name))
}

func (f *fence) Mkdir(name string, perm os.FileMode) error {
	if !f.enter() {
		return &os.PathError{Op: "mkdir", Path: name, Err: errFenced}
	}
	defer f.leave()
	f.written(name)
	return f.Fs.Mkdir(name, perm)
}

func (f *fence) MkdirAll(path string, perm os.FileMode) error {
	if !f.enter() {
		return &os.PathError{Op: "mkdir", Path: path, Err: errFenced}
	}
	defer f.leave()
	f.written(path)
	return f.Fs.MkdirAll(path, perm)
}

func (f *fence) Open(name string) (afero.File, error) {
	if !f.enter() {
		return nil, &os.PathError{Op: "open", Path: name, Err: errFenced}
	}
	defer f.leave()
	return f.Fs.Open(name) // read only: left as it is (Hugo asks it for ReadDir and more)
}

func (f *fence) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if !f.enter() {
		return nil, &os.PathError{Op: "open", Path: name, Err: errFenced}
	}
	defer f.leave()
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) == 0 {
		return f.Fs.OpenFile(name, flag, perm)
	}
	f.written(name)
	return f.file(f.Fs.OpenFile(name, flag, perm))
}

func (f *fence) Remove(name string) error {
	if !f.enter() {
		return &os.PathError{Op: "remove", Path: name, Err: errFenced}
	}
	defer f.leave()
	return f.Fs.Remove(name)
}

func (f *fence) RemoveAll(path string) error {
	if !f.enter() {
		return &os.PathError{Op: "removeall", Path: path, Err: errFenced}
	}
	defer f.leave()
	return f.Fs.RemoveAll(path)
}

func (f *fence) Rename(oldname, newname string) error {
	if !f.enter() {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: errFenced}
	}
	defer f.leave()
	f.written(newname)
	return f.Fs.Rename(oldname, newname)
}

func (f *fence) Stat(name string) (os.FileInfo, error) {
	if !f.enter() {
		return nil, &os.PathError{Op: "stat", Path: name, Err: errFenced}
	}
	defer f.leave()
	return f.Fs.Stat(name)
}

func (f *fence) Chmod(name string, mode os.FileMode) error {
	if !f.enter() {
		return &os.PathError{Op: "chmod", Path: name, Err: errFenced}
	}
	defer f.leave()
	return f.Fs.Chmod(name, mode)
}

func (f *fence) Chown(name string, uid, gid int) error {
	if !f.enter() {
		return &os.PathError{Op: "chown", Path: name, Err: errFenced}
	}
	defer f.leave()
	return f.Fs.Chown(name, uid, gid)
}

func (f *fence) Chtimes(name string, atime, mtime time.Time) error {
	if !f.enter() {
		return &os.PathError{Op: "chtimes", Path: name, Err: errFenced}
	}
	defer f.leave()
	return f.Fs.Chtimes(name, atime, mtime)
}

// LstatIfPossible keeps what the wrapped file system offers (Hugo asks).
func (f *fence) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	if !f.enter() {
		return nil, false, &os.PathError{Op: "lstat", Path: name, Err: errFenced}
	}
	defer f.leave()
	if l, ok := f.Fs.(afero.Lstater); ok {
		return l.LstatIfPossible(name)
	}
	fi, err := f.Fs.Stat(name)
	return fi, false, err
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

func (w *fencedFile) Write(p []byte) (int, error) {
	if !w.f.enter() {
		return 0, &os.PathError{Op: "write", Path: w.Name(), Err: errFenced}
	}
	defer w.f.leave()
	return w.File.Write(p)
}

func (w *fencedFile) WriteAt(p []byte, off int64) (int, error) {
	if !w.f.enter() {
		return 0, &os.PathError{Op: "write", Path: w.Name(), Err: errFenced}
	}
	defer w.f.leave()
	return w.File.WriteAt(p, off)
}

func (w *fencedFile) WriteString(s string) (int, error) {
	if !w.f.enter() {
		return 0, &os.PathError{Op: "write", Path: w.Name(), Err: errFenced}
	}
	defer w.f.leave()
	return w.File.WriteString(s)
}

func (w *fencedFile) Truncate(size int64) error {
	if !w.f.enter() {
		return &os.PathError{Op: "truncate", Path: w.Name(), Err: errFenced}
	}
	defer w.f.leave()
	return w.File.Truncate(size)
}

func (w *fencedFile) Sync() error {
	if !w.f.enter() {
		return &os.PathError{Op: "sync", Path: w.Name(), Err: errFenced}
	}
	defer w.f.leave()
	return w.File.Sync()
}
