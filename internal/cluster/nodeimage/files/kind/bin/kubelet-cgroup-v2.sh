#!/bin/bash
# Under cgroup v2 the kubelet's cgroup root needs every controller of its
# parent enabled: hand them down from the container's root to /kubelet and
# /kubelet.slice. Runs after systemd started (its root cgroup.procs is
# then empty, the precondition for writing subtree_control there).
set -o errexit -o nounset -o pipefail
enable_all() {
  local g=/sys/fs/cgroup/$1
  sed -e 's/ / +/g' -e 's/^/+/' < "$g/cgroup.controllers" > "$g/cgroup.subtree_control"
}
enable_all .
for sub in kubelet kubelet.slice; do
  mkdir -p "/sys/fs/cgroup/$sub"
  enable_all "$sub"
done
