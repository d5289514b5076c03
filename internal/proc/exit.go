package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ChildrenWith lists the running children of this process whose command
// line holds arg (a data or certificate directory only that child was
// given): how a library's children (envtest's etcd and kube-apiserver)
// are found to watch them. Linux only; elsewhere none.
func ChildrenWith(arg string) []int {
	if !procfs() {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, p := range procStats() {
		if p.state == "Z" || p.ppid != self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(cmdline), "\x00", " "), arg) {
			out = append(out, p.pid)
		}
	}
	return out
}

// procStat is what /proc/PID/stat says of a process.
type procStat struct {
	pid, ppid, pgrp int
	state           string
}

// procStats reads /proc/*/stat: the processes this one can see (none
// without procfs).
func procStats() []procStat {
	entries, _ := os.ReadDir("/proc")
	var out []procStat
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
		out = append(out, procStat{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0]})
	}
	return out
}

func procfs() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// Kill kills process pid (SIGKILL; Windows: TerminateProcess).
func Kill(pid int) error { return kill(pid) }
