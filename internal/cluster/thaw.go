package cluster

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// A kind node killed while its containerd was starting a pod can leave
// that pod's cgroup frozen (runc's systemd driver freezes a cgroup while it
// sets it up, on cgroup v1, and thaws it after; killed in between, nobody
// thaws it). A frozen task never dies, so the node's PID 1 never exits and
// the engine cannot remove the node ("tried to kill container, but did not
// receive an exit event"). deleteKind thaws such cgroups while it deletes.

// cgroupRoot is where the host's cgroup file systems are mounted.
var cgroupRoot = "/sys/fs/cgroup"

// containerCgroups are the folders the cgroups of engine container id can
// be in: cgroup v1's freezer hierarchy or the v2 unified one, with the
// engine's cgroupfs or systemd driver.
func containerCgroups(root, id string) []string {
	var out []string
	for _, h := range []string{"freezer", ""} {
		for _, p := range []string{"docker/" + id, "system.slice/docker-" + id + ".scope"} {
			out = append(out, filepath.Join(root, h, p))
		}
	}
	return out
}

// thawFrozen thaws every frozen cgroup below the given container's and
// returns how many it thawed.
func thawFrozen(root string, ids []string) int {
	n := 0
	for _, id := range ids {
		for _, dir := range containerCgroups(root, id) {
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return nil
				}
				switch d.Name() {
				case "freezer.state": // v1
					if b, _ := os.ReadFile(p); bytes.HasPrefix(b, []byte("FROZEN")) || bytes.HasPrefix(b, []byte("FREEZING")) {
						if os.WriteFile(p, []byte("THAWED"), 0) == nil {
							n++
						}
					}
				case "cgroup.freeze": // v2
					if b, _ := os.ReadFile(p); bytes.HasPrefix(b, []byte("1")) {
						if os.WriteFile(p, []byte("0"), 0) == nil {
							n++
						}
					}
				}
				return nil
			})
		}
	}
	return n
}

// kindContainerIDs are the full IDs of kind cluster name's node containers.
func kindContainerIDs(name string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", "ps", "-aq", "--no-trunc", "--filter", "label=io.x-k8s.kind.cluster="+name).Output()
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}

// whileThawing runs del while thawing the nodes' frozen cgroups every
// 200 ms, and once more with a second try if del failed.
func whileThawing(ids []string, del func() error) error {
	done := make(chan error, 1)
	go func() { done <- del() }()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil && thawFrozen(cgroupRoot, ids) > 0 {
				return del()
			}
			return err
		case <-tick.C:
			thawFrozen(cgroupRoot, ids)
		}
	}
}
