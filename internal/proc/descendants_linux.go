package proc

import (
	"os"
	"syscall"
)

// SignalDescendants sends sig to the descendants of this process that are
// in its process group, found through /proc: the processes a Ctrl-C in a
// terminal reaches (the programs runbooks exec). Children started by
// Registry.Start or Wrap have process groups of their own and are not
// signalled: kbook stops them in order.
func SignalDescendants(sig syscall.Signal) {
	parent := map[int]int{}
	group := map[int]int{}
	for _, p := range procStats() {
		parent[p.pid], group[p.pid] = p.ppid, p.pgrp
	}
	self, pgrp := os.Getpid(), syscall.Getpgrp()
	for pid := range parent {
		if group[pid] != pgrp {
			continue
		}
		for p, depth := parent[pid], 0; p > 1 && depth < 128; p, depth = parent[p], depth+1 {
			if p == self {
				_ = syscall.Kill(pid, sig)
				break
			}
		}
	}
}
