package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// stat is "pid (comm) state ppid pgrp ...": comm may hold spaces.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		parent[pid], group[pid] = ppid, pgrp
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
