package cluster

import (
	"os"
	"path/filepath"
	"testing"
)

// TestThawFrozen: the frozen cgroups below a node container's, v1 and
// v2, are thawed; those of other containers and thawed ones are left.
func TestThawFrozen(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) string {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	frozenV1 := write("freezer/docker/abc/kubelet.slice/pod1/cri-1.scope/freezer.state", "FROZEN\n")
	thawedV1 := write("freezer/docker/abc/kubelet.slice/pod2/freezer.state", "THAWED\n")
	frozenSystemd := write("freezer/system.slice/docker-abc.scope/x/freezer.state", "FREEZING\n")
	frozenV2 := write("system.slice/docker-abc.scope/kubelet/pod3/cgroup.freeze", "1\n")
	other := write("freezer/docker/def/freezer.state", "FROZEN\n")

	if n := thawFrozen(root, []string{"abc"}); n != 3 {
		t.Errorf("thawed %d cgroups, want 3", n)
	}
	for file, want := range map[string]string{frozenV1: "THAWED", thawedV1: "THAWED\n", frozenSystemd: "THAWED", frozenV2: "0", other: "FROZEN\n"} {
		if b, _ := os.ReadFile(file); string(b) != want {
			t.Errorf("%s = %q, want %q", file, b, want)
		}
	}
	if n := thawFrozen(root, []string{"abc"}); n != 0 {
		t.Errorf("second pass thawed %d, want 0", n)
	}
}
