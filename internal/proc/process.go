package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Process identifies one process beyond its pid, which the system reuses.
type Process struct {
	// PID is the process id.
	PID int `json:"pid"`
	// Start is the start time in the system's own unit (clock ticks since
	// boot on Linux); 0 where the system does not say.
	Start uint64 `json:"start,omitempty"`
	// Exe is the executable's path, when known; recorded children are
	// only killed while they still run it.
	Exe string `json:"exe,omitempty"`
	// Name says what the process is, for messages ("etcd").
	Name string `json:"name,omitempty"`
}

func (p Process) String() string {
	name := p.Name
	if name == "" {
		name = filepath.Base(p.Exe)
	}
	if name == "" || name == "." {
		return fmt.Sprintf("pid %d", p.PID)
	}
	return fmt.Sprintf("%s (pid %d)", name, p.PID)
}

// ErrGone means no running process has the pid (a zombie is not running).
var ErrGone = errors.New("no such running process")

// Inspect describes the running process pid: its start time and executable
// where the system tells them. It returns ErrGone for a pid that does not
// run or belongs to a zombie.
func Inspect(pid int) (Process, error) {
	if pid <= 0 {
		return Process{}, ErrGone
	}
	return inspect(pid)
}

// Self describes the calling process.
func Self() (Process, error) {
	p, err := Inspect(os.Getpid())
	if err != nil {
		return p, fmt.Errorf("inspect own process: %w", err)
	}
	if p.Exe == "" {
		p.Exe, _ = os.Executable()
	}
	return p, nil
}

// Running reports whether p still runs: its pid runs and, where recorded
// and known, with the same start time and executable. A process that
// exec'd another program after being recorded no longer matches.
func (p Process) Running() bool {
	cur, err := Inspect(p.PID)
	if err != nil {
		return false
	}
	return p.matches(cur)
}

// Verifiable reports whether this system can tell p from a later process
// with the same pid. Sweep kills only verifiable processes.
func (p Process) Verifiable() bool { return p.Start != 0 }

func (p Process) matches(cur Process) bool {
	if p.Start != 0 && cur.Start != 0 && p.Start != cur.Start {
		return false
	}
	if p.Exe != "" && cur.Exe != "" && !sameFile(p.Exe, cur.Exe) {
		return false
	}
	return true
}

// sameFile compares executable paths as the system reports them (Linux
// appends " (deleted)" when the binary was replaced after exec).
func sameFile(a, b string) bool {
	a, b = strings.TrimSuffix(a, " (deleted)"), strings.TrimSuffix(b, " (deleted)")
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
