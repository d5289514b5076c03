package proc

import (
	"os"
	"path/filepath"
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

// Descendants maps each process below pid (its children, theirs, and so
// on) to its parent, as /proc shows them now.
func Descendants(pid int) map[int]int {
	parent, _ := processTree()
	below := map[int]int{}
	for p, pp := range parent {
		if descends(parent, p, pid) {
			below[p] = pp
		}
	}
	return below
}

// KillDescendantsIn kills (SIGKILL) the descendants of this process whose
// environment holds dir or a path below it, or whose working directory is
// there: the programs one runbook runs (testscript gives them WORK=<its
// work directory> and starts them in it), and nothing of the runbooks
// beside it. The working directory also finds a program in the middle of
// an execve (`sh -c '...; exec sleep 300'`): the kernel shows its
// environment empty until the new program's stack is set up, while the
// working directory survives the exec. It returns how many it killed.
func KillDescendantsIn(dir string) int {
	parent, _ := processTree()
	self, n := os.Getpid(), 0
	real := dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		real = r
	}
	for pid := range parent {
		if !descends(parent, pid, self) || !runsIn(pid, dir, real) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// runsIn reports whether process pid's environment names dir (or a path
// below it) or its working directory is real (dir with its symbolic links
// resolved, as the kernel shows a working directory) or below it.
func runsIn(pid int, dir, real string) bool {
	p := "/proc/" + strconv.Itoa(pid)
	if env, err := os.ReadFile(p + "/environ"); err == nil && envInside(string(env), []string{dir}) {
		return true
	}
	cwd, err := os.Readlink(p + "/cwd")
	return err == nil && within(cwd, real)
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
