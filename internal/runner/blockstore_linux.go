package runner

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// procFD is whether this process's descriptors can be opened by path
// (/proc is mounted): bash then sources a block from a memfd.
var procFD = sync.OnceValue(func() bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d/fd", os.Getpid()))
	return err == nil
})

// openMemory makes a memfd (closed on exec: bash opens it by path) and
// returns the path another process opens it by; ok is false where that
// cannot be done.
func openMemory() (f *os.File, path string, ok bool) {
	if !procFD() {
		return nil, "", false
	}
	fd, err := unix.MemfdCreate("kbook-block", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, "", false
	}
	return os.NewFile(uintptr(fd), "kbook-block"), fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), fd), true
}
