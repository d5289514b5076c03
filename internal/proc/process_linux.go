package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// inspect reads /proc/<pid>/stat (state and start time) and the exe link.
func inspect(pid int) (Process, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return Process{}, ErrGone
	}
	if err != nil {
		return Process{}, fmt.Errorf("inspect pid %d: %w", pid, err)
	}
	// "pid (comm) state ppid ... starttime(22nd) ...": comm may hold spaces.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Process{}, fmt.Errorf("inspect pid %d: unexpected /proc stat %q", pid, s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return Process{}, fmt.Errorf("inspect pid %d: unexpected /proc stat %q", pid, s)
	}
	if f[0] == "Z" || f[0] == "X" {
		return Process{}, ErrGone
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return Process{}, fmt.Errorf("inspect pid %d: start time %q: %w", pid, f[19], err)
	}
	p := Process{PID: pid, Start: start}
	p.Exe, _ = os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe") // unreadable for other users' processes
	return p, nil
}

// childAttr gives a child its own process group and kills it when the
// thread that started it dies: Go's runtime does not end threads (except
// ones a goroutine locked and never unlocked, which kbook does not do), so
// in effect when kbook dies.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// setDeathSignal asks the kernel to SIGKILL the calling thread's process
// when its parent dies; the attribute survives exec of the calling thread.
func setDeathSignal() error {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// canWrap: the wrapper is a shell script that execs kbook.
const canWrap = true

func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
func kill(pid int) error      { return syscall.Kill(pid, syscall.SIGKILL) }

// killGroup kills the process group a Start child leads.
func killGroup(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

func execve(path string, args, env []string) error { return syscall.Exec(path, args, env) }

func mergeChildAttr(a *syscall.SysProcAttr) {
	a.Setpgid = true
	a.Pdeathsig = syscall.SIGKILL
}

// processesIn finds the running processes whose environment holds a path
// inside one of dirs (a runbook's commands carry WORK=<work dir>/...):
// after their kbook was killed nothing else points at them.
func processesIn(dirs []string) []Process {
	if len(dirs) == 0 {
		return nil
	}
	entries, _ := os.ReadDir("/proc")
	var out []Process
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		if !envInside(string(env), dirs) {
			continue
		}
		if p, err := inspect(pid); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// envInside reports whether a NUL-separated environment has a variable
// whose value is one of dirs or a path below one.
func envInside(env string, dirs []string) bool {
	for _, kv := range strings.Split(env, "\x00") {
		_, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		for _, d := range dirs {
			if within(v, d) {
				return true
			}
		}
	}
	return false
}

// within reports whether path is dir or a path below it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// findSetpriv is util-linux's setpriv when it arms a parent-death signal
// here (tried once), else "": Wrap's scripts then use the Go wrapper.
var findSetpriv = sync.OnceValue(func() string {
	p, err := exec.LookPath("setpriv")
	if err != nil {
		return ""
	}
	if err := exec.Command(p, "--pdeathsig", "KILL", "--", "/bin/sh", "-c", ":").Run(); err != nil {
		return ""
	}
	return p
})
