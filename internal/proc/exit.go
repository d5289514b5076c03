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
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid != self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(cmdline), "\x00", " "), arg) {
			out = append(out, pid)
		}
	}
	return out
}

func procfs() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// Kill kills process pid (SIGKILL; Windows: TerminateProcess).
func Kill(pid int) error { return kill(pid) }
