package proc

import (
	"os"
	"strconv"
	"syscall"
)

// SignalDescendants sends sig to the descendants of this process that are
// in its process group, found through /proc: the processes a Ctrl-C in a
// terminal reaches (the programs runbooks exec). Children started by
// Registry.Start or Wrap have process groups of their own and are not
// signalled: kbook stops them in order.
func SignalDescendants(sig syscall.Signal) {
	parent, group := processTree()
	self, pgrp := os.Getpid(), syscall.Getpgrp()
	for pid := range parent {
		if group[pid] == pgrp && descends(parent, pid, self) {
			_ = syscall.Kill(pid, sig)
		}
	}
}

// KillDescendantsIn kills (SIGKILL) the descendants of this process whose
// environment holds dir or a path below it: the programs one runbook runs
// (testscript gives them WORK=<its work directory>), and nothing of the
// runbooks beside it. It returns how many it killed.
func KillDescendantsIn(dir string) int {
	parent, _ := processTree()
	self, n := os.Getpid(), 0
	for pid := range parent {
		if !descends(parent, pid, self) {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil || !envInside(string(env), []string{dir}) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// descends reports whether pid is below ancestor in the parent map.
func descends(parent map[int]int, pid, ancestor int) bool {
	for p, depth := parent[pid], 0; p > 1 && depth < 128; p, depth = parent[p], depth+1 {
		if p == ancestor {
			return true
		}
	}
	return false
}

// processTree maps every process in /proc to its parent and its process
// group.
func processTree() (parent, group map[int]int) {
	parent, group = map[int]int{}, map[int]int{}
	for _, p := range procStats() {
		parent[p.pid], group[p.pid] = p.ppid, p.pgrp
	}
	return parent, group
}
