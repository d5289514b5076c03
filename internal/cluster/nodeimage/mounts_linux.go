package nodeimage

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// unmountUnder unmounts what is mounted at or below dir, deepest first:
// what debootstrap mounts in the root it makes (proc, sys, dev/pts) and
// leaves there when it is killed, which would make the root impossible
// to remove (its files under proc cannot be deleted) until unmounted.
func unmountUnder(dir string) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil // no /proc: nothing kbook could have mounted
	}
	defer f.Close()
	for _, m := range mountsUnder(f, dir) {
		if err := unix.Unmount(m, unix.MNT_DETACH); err != nil && err != unix.EINVAL && err != unix.ENOENT {
			return fmt.Errorf("unmount %s, left mounted by an earlier debootstrap: %w", m, err)
		}
	}
	return nil
}
