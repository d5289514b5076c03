package runner

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// watchInterrupt stops every process kbook started when ctx is cancelled:
// SIGINT first, SIGKILL for what still runs after a grace period.
// testscript's exec has no context of its own beyond the deadline, so this
// is how Ctrl-C reaches kubectl, helm and friends.
func watchInterrupt(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		signalDescendants(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			signalDescendants(syscall.SIGKILL)
		}
	}()
	return func() { close(done) }
}

// signalDescendants sends sig to the descendants of this process that are
// in its process group, found through /proc: the processes a Ctrl-C in a
// terminal reaches. Servers kbook runs in their own process group (the
// local API server's kube-apiserver and etcd) keep running for cleanup.
func signalDescendants(sig syscall.Signal) {
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
		// stat is "pid (comm) state ppid ...": comm may hold spaces.
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
