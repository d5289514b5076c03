package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Reaped is what ending one registry did.
type Reaped struct {
	// Owner is the process the registry belonged to.
	Owner Process
	// Stopped are the recorded processes that still ran and were stopped.
	Stopped []Process
	// Removed are the directories removed besides the registry itself
	// (the ones made by MkdirTemp and the tracked ones that existed).
	Removed []string
	// Ended are the Externals ended (a kind cluster deleted).
	Ended []External
}

// Empty reports whether nothing had to be stopped or removed.
func (r Reaped) Empty() bool {
	return len(r.Stopped) == 0 && len(r.Removed) == 0 && len(r.Ended) == 0
}

// String says what was done: "stopped etcd (pid 12), kube-apiserver (pid
// 14); removed 3 directories".
func (r Reaped) String() string {
	var parts []string
	if len(r.Stopped) > 0 {
		names := make([]string, len(r.Stopped))
		for i, p := range r.Stopped {
			names[i] = p.String()
		}
		parts = append(parts, "stopped "+strings.Join(names, ", "))
	}
	for _, e := range r.Ended {
		parts = append(parts, "deleted "+e.String())
	}
	switch len(r.Removed) {
	case 0:
	case 1:
		parts = append(parts, "removed "+r.Removed[0])
	default:
		parts = append(parts, fmt.Sprintf("removed %d directories", len(r.Removed)))
	}
	if len(parts) == 0 {
		return "nothing left to clean up"
	}
	return strings.Join(parts, "; ")
}

// staleNew is how old a half-made registry (see Open) must be before Sweep
// removes it.
const staleNew = time.Minute

// Sweep reaps the registries below root whose owner no longer runs: it
// stops their recorded processes that still run (verified by pid, start
// time and executable), removes their directories and records, and
// returns what it did for those where something was left. Registries of
// running owners are left alone, so concurrent kbook processes never
// disturb each other.
func Sweep(root string) ([]Reaped, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sweep %s: %w", root, err)
	}
	var out []Reaped
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if strings.HasPrefix(e.Name(), newPrefix) {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleNew {
				_ = os.RemoveAll(dir)
			}
			continue
		}
		o, err := readOwner(dir)
		switch {
		case errors.Is(err, errOtherFormat):
			continue
		case err != nil:
			// No readable owner record: Open never makes one, so it
			// is debris; leave fresh ones alone in case.
			if fi, statErr := e.Info(); statErr == nil && time.Since(fi.ModTime()) > staleNew {
				_ = os.RemoveAll(dir)
			}
			continue
		}
		if o.Owner.Running() {
			continue
		}
		res, err := reap(dir, 2*time.Second)
		res.Owner = o.Owner
		if err != nil {
			errs = append(errs, err)
		}
		if !res.Empty() {
			out = append(out, res)
		}
	}
	return out, errors.Join(errs...)
}

// Reap ends the registry in dir whatever its owner's state: the recorded
// processes that still run are stopped (SIGTERM, SIGKILL after grace), the
// directories removed. kbook cluster down uses it once the cluster's
// process is gone. A registry that does not exist is no error.
func Reap(dir string, grace time.Duration) (Reaped, error) {
	o, err := readOwner(dir)
	if errors.Is(err, os.ErrNotExist) {
		return Reaped{}, nil
	}
	res, rerr := reap(dir, grace)
	res.Owner = o.Owner
	return res, rerr
}

var errOtherFormat = errors.New("registry of another format version")

func readOwner(dir string) (owner, error) {
	var o owner
	data, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return o, err
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return o, fmt.Errorf("%s: %w", filepath.Join(dir, ownerFile), err)
	}
	if o.Format != FormatVersion {
		return o, errOtherFormat
	}
	return o, nil
}

// reap stops what dir records and removes it.
func reap(dir string, grace time.Duration) (Reaped, error) {
	var res Reaped
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("reap %s: %w", dir, err)
	}
	var running []Process
	var dirs []string
	var exts []External
	self := os.Getpid()
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, procPrefix) && strings.HasSuffix(name, ".json"):
			var p Process
			if readJSON(filepath.Join(dir, name), &p) != nil || p.PID == self {
				continue
			}
			if p.Verifiable() && p.Running() {
				running = append(running, p)
			}
		case strings.HasPrefix(name, extPrefix) && strings.HasSuffix(name, ".json"):
			var x External
			if readJSON(filepath.Join(dir, name), &x) == nil && x.Kind != "" {
				exts = append(exts, x)
			}
		case strings.HasPrefix(name, dirPrefix) && strings.HasSuffix(name, ".json"):
			var d dirRecord
			if readJSON(filepath.Join(dir, name), &d) == nil && d.Path != "" {
				dirs = append(dirs, d.Path)
			}
		}
	}
	// What runbooks ran in the tracked work directories has no record of
	// its own; its environment names the directory.
	sort.Strings(dirs)
	seen := map[int]bool{}
	for _, p := range running {
		seen[p.PID] = true
	}
	for _, p := range processesIn(dirs) {
		if !seen[p.PID] {
			running = append(running, p)
		}
	}
	res.Stopped = stopAll(running, grace)
	// The registry's own temporary directories count as removed too: they
	// held what the processes kept.
	if subs, err := os.ReadDir(filepath.Join(dir, tmpDir)); err == nil {
		for _, s := range subs {
			res.Removed = append(res.Removed, filepath.Join(dir, tmpDir, s.Name()))
		}
	}
	var errs []error
	for _, d := range dirs {
		if _, err := os.Lstat(d); err != nil {
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", d, err))
			continue
		}
		res.Removed = append(res.Removed, d)
	}
	// An External that could not be ended keeps the registry (its other
	// records gone), so that the next sweep tries again.
	keep := false
	for _, x := range exts {
		// Made again, under the same name, by a kbook that runs (a kind
		// cluster "kbook" of the next run): it is that kbook's now.
		if _, live := externalOwner(filepath.Dir(dir), dir, x); live {
			_ = os.Remove(filepath.Join(dir, extRecordName(x)))
			continue
		}
		r := reaperFor(x.Kind)
		if r == nil {
			keep = true
			continue
		}
		if err := r(x.Name); err != nil {
			errs = append(errs, fmt.Errorf("end %s: %w", x, err))
			keep = true
			continue
		}
		res.Ended = append(res.Ended, x)
		_ = os.Remove(filepath.Join(dir, extRecordName(x)))
	}
	if keep {
		cleanKeeping(dir, extPrefix, ownerFile)
		return res, errors.Join(errs...)
	}
	if err := os.RemoveAll(dir); err != nil {
		errs = append(errs, fmt.Errorf("remove %s: %w", dir, err))
	}
	return res, errors.Join(errs...)
}

// stopAll sends SIGTERM to every process, waits up to grace for them to
// end, and SIGKILLs the rest. It returns the processes it signalled.
func stopAll(ps []Process, grace time.Duration) []Process {
	if len(ps) == 0 {
		return nil
	}
	if grace > 0 {
		for _, p := range ps {
			_ = terminate(p.PID)
		}
		deadline := time.Now().Add(grace)
		for time.Now().Before(deadline) && anyRunning(ps) {
			time.Sleep(50 * time.Millisecond)
		}
	}
	for _, p := range ps {
		if p.Running() {
			_ = kill(p.PID)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && anyRunning(ps) {
		time.Sleep(20 * time.Millisecond)
	}
	return ps
}

func anyRunning(ps []Process) bool {
	for _, p := range ps {
		if p.Running() {
			return true
		}
	}
	return false
}

func readJSON(file string, v any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// cleanKeeping removes everything in dir but the owner record and the
// records whose names start with prefix.
func cleanKeeping(dir, prefix, ownerName string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() == ownerName || strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}
