package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/atomicfile"
	"github.com/k0rdent/kbook/internal/cluster/kubeconfig"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
	"k8s.io/client-go/tools/clientcmd"
)

// DefaultName is the name `kbook cluster up` gives a cluster.
const DefaultName = "default"

// State is what `kbook cluster up` records so that later commands (down,
// status, kubeconfig, run --reuse) find the cluster.
type State struct {
	Name    string `json:"name"`
	Backend string `json:"backend"`
	Server  string `json:"server"`
	// PID is the `kbook cluster serve` process holding a local cluster,
	// PIDStart its start time (see proc.Process), so that a reused pid is
	// never taken for it.
	PID      int    `json:"pid,omitempty"`
	PIDStart uint64 `json:"pidStart,omitempty"`
	// Registry is the serve process's record of the servers it started
	// and their directories (see package proc): what cluster down stops.
	Registry   string    `json:"registry,omitempty"`
	Kubeconfig string    `json:"kubeconfig"`
	Started    time.Time `json:"started"`
	CRDs       []string  `json:"crds,omitempty"`
	// PlaneLogs is the k0rdent plane's log directory (--k0rdent with
	// controllers), where its supervisor lists the restarts.
	PlaneLogs string `json:"planeLogs,omitempty"`
	// KindName is the kind cluster behind a kind state.
	KindName string `json:"kindName,omitempty"`
}

// StateDir is where the state of the named cluster lives below root (the
// kbook cache directory).
func StateDir(root, name string) string {
	return filepath.Join(root, "clusters", name)
}

// ErrNoState means no cluster of that name was brought up.
var ErrNoState = errors.New("no cluster is up")

// ReadState reads a cluster's state.
func ReadState(root, name string) (*State, error) {
	data, err := os.ReadFile(filepath.Join(StateDir(root, name), "state.json"))
	if errors.Is(err, os.ErrNotExist) {
		if up := stateNames(root); len(up) > 0 {
			return nil, fmt.Errorf("%w with name %q; up: %s (name one with --name)", ErrNoState, name, strings.Join(up, ", "))
		}
		return nil, fmt.Errorf("%w with name %q (start one with: kbook cluster up)", ErrNoState, name)
	}
	if err != nil {
		return nil, fmt.Errorf("read cluster state: %w", err)
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("read cluster state %s: %w", name, err)
	}
	return &s, nil
}

// stateNames lists the clusters brought up below root, by name.
func stateNames(root string) []string {
	entries, _ := os.ReadDir(filepath.Join(root, "clusters"))
	var names []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(StateDir(root, e.Name()), "state.json")); err == nil {
			names = append(names, e.Name())
		}
	}
	return names
}

// WriteState records a cluster's state and its kubeconfig; it fills in
// s.Kubeconfig.
func WriteState(root string, s *State, kubeconfig []byte) error {
	dir := StateDir(root, s.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write cluster state: %w", err)
	}
	s.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := atomicfile.Write(s.Kubeconfig, kubeconfig); err != nil {
		return err
	}
	if err := os.Chmod(s.Kubeconfig, 0o600); err != nil {
		return err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "state.json"), append(data, '\n'))
}

// RemoveState forgets a cluster.
func RemoveState(root, name string) error {
	if err := os.RemoveAll(StateDir(root, name)); err != nil {
		return fmt.Errorf("remove cluster state: %w", err)
	}
	return nil
}

// Alive reports whether the process holding a local cluster still runs
// (a zombie or a later process with the same pid does not count).
func (s *State) Alive() bool {
	if s.PID <= 0 {
		return true
	}
	return s.process().Running()
}

func (s *State) process() proc.Process {
	return proc.Process{PID: s.PID, Start: s.PIDStart, Name: "kbook cluster serve"}
}

// Reuse connects to a cluster brought up earlier; kbook will not stop it.
func Reuse(ctx context.Context, s *State) (Cluster, error) {
	if !s.Alive() {
		return nil, fmt.Errorf("cluster %q is not running (its process %d is gone): run kbook cluster down, then up", s.Name, s.PID)
	}
	raw, err := os.ReadFile(s.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", s.Name, err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(raw)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: kubeconfig: %w", s.Name, err)
	}
	if err := kubeconfig.Ping(ctx, cfg); err != nil {
		return nil, fmt.Errorf("cluster %q: %w", s.Name, err)
	}
	return &kubeconfigCluster{name: s.Name, cfg: cfg, backend: s.Backend, raw: raw}, nil
}

// Serve holds a local cluster (or a kind cluster with k0rdent installed,
// whose chart registry it serves) until ctx ends: kbook cluster up runs it in
// a background process. It records the state once the server is ready and
// removes it when it stops. o.Procs, when set, is the serve process's
// registry: the state names it so that cluster down can stop what it
// started even after this process was killed.
func Serve(ctx context.Context, root string, o Options, name string) error {
	c, err := Up(ctx, o)
	if err != nil {
		return err
	}
	kc, err := c.Kubeconfig()
	if err == nil {
		self := o.Procs.Owner()
		if self.PID == 0 {
			self, _ = proc.Self()
		}
		err = WriteState(root, &State{Name: name, Backend: c.Backend(), Server: c.RESTConfig().Host,
			PID: os.Getpid(), PIDStart: self.Start, Registry: o.Procs.Dir(), Started: time.Now(), CRDs: o.CRDs, PlaneLogs: planeLogs(c), KindName: kindNameOf(c)}, kc)
	}
	if err == nil {
		lost, why := Lost(c)
		select {
		case <-ctx.Done():
		case <-lost:
			err = why()
		}
	}
	stopErr := c.Stop(context.WithoutCancel(ctx))
	rmErr := RemoveState(root, name)
	return errors.Join(err, stopErr, rmErr)
}

func kindNameOf(c Cluster) string {
	if k, ok := c.(*kindCluster); ok {
		return k.name
	}
	return ""
}

func planeLogs(c Cluster) string {
	if p := PlaneOf(c); p != nil {
		return p.LogDir()
	}
	return ""
}

// Down stops a cluster brought up with `kbook cluster up` and forgets it.
// For a local cluster it stops the serve process, then whatever its
// registry still names (the servers of a serve process that was killed)
// and removes their directories.
func Down(ctx context.Context, root string, s *State, logger log.Logger) error {
	log := log.Or(logger)
	// A serve process (a local cluster; a kind cluster with k0rdent's
	// chart registry) stops first, then what it left behind.
	if s.PID > 0 && s.Alive() {
		if err := terminate(s.PID); err != nil {
			return fmt.Errorf("stop cluster %q (process %d): %w", s.Name, s.PID, err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for s.Alive() {
			if time.Now().After(deadline) {
				log.Infof("cluster %q: process %d did not stop within 60s: killing it", s.Name, s.PID)
				_ = kill(s.PID)
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	if s.Registry != "" {
		res, err := proc.Reap(s.Registry, 5*time.Second)
		if !res.Empty() {
			log.Infof("cluster %q: cleaned up what its process %d left behind: %s", s.Name, s.PID, res)
		}
		if err != nil {
			return fmt.Errorf("cluster %q: %w", s.Name, err)
		}
	}
	switch s.Backend {
	case Kind:
		rt, err := DetectRuntime()
		if err != nil {
			return fmt.Errorf("kind: %w", err)
		}
		c := &kindCluster{name: s.KindName, created: true}
		c.provider = newKindProvider(rt, log)
		if err := c.Stop(ctx); err != nil {
			return err
		}
	}
	return RemoveState(root, s.Name)
}
