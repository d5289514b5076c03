package nodeimage

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestMountsUnder(t *testing.T) {
	info := `22 28 0:21 / /proc rw,nosuid - proc proc rw
61 28 0:5 / /root/.cache/kbook/nodeimage/base-x/rootfs/proc rw,relatime - proc proc rw
62 61 0:6 / /root/.cache/kbook/nodeimage/base-x/rootfs/proc/sys/fs/binfmt_misc rw - binfmt_misc binfmt_misc rw
63 28 0:7 / /root/.cache/kbook/nodeimage/base-x/rootfs/dev/pts rw - devpts devpts rw
64 28 0:8 / /root/.cache/kbook/nodeimage/base-xy/rootfs/proc rw - proc proc rw
65 28 0:9 / /tmp/a\040b/rootfs/sys rw - sysfs sysfs rw
`
	got := mountsUnder(strings.NewReader(info), "/root/.cache/kbook/nodeimage/base-x/")
	want := []string{
		"/root/.cache/kbook/nodeimage/base-x/rootfs/proc/sys/fs/binfmt_misc",
		"/root/.cache/kbook/nodeimage/base-x/rootfs/dev/pts",
		"/root/.cache/kbook/nodeimage/base-x/rootfs/proc",
	}
	if !slices.Equal(got, want) {
		t.Errorf("mounts under base-x = %q, want %q (deepest first, not base-xy's)", got, want)
	}
	if got := mountsUnder(strings.NewReader(info), "/tmp/a b"); !slices.Equal(got, []string{"/tmp/a b/rootfs/sys"}) {
		t.Errorf("an escaped mount point: %q", got)
	}
}

// TestUnmountUnder: a root with proc mounted in it, as a killed
// debootstrap leaves it, is unmounted and can be removed.
func TestUnmountUnder(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("mounting proc needs root on Linux")
	}
	dir := t.TempDir()
	procDir := filepath.Join(dir, "rootfs", "proc")
	if err := os.MkdirAll(procDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mountProc(procDir); err != nil {
		t.Skipf("cannot mount proc here: %v", err)
	}
	if err := os.Remove(procDir); err == nil {
		t.Fatal("proc mounted was removed: the test shows nothing")
	}
	if err := unmountUnder(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatalf("after unmountUnder: %v", err)
	}
}
