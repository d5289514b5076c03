package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/supervisor"
	"sigs.k8s.io/yaml"
)

// Status is what kbook cluster status reports of a cluster kbook cluster
// up started.
type Status struct {
	Name              string `json:"name"`
	Backend           string `json:"backend"`
	Running           bool   `json:"running"`
	Server            string `json:"server"`
	Kubeconfig        string `json:"kubeconfig"`
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	PID               int    `json:"pid,omitempty"`
	Started           string `json:"started"`
	Error             string `json:"error,omitempty"`
	// Restarts are the k0rdent controllers' exits and restarts.
	Restarts []supervisor.Restart `json:"restarts,omitempty"`
	// Down are the k0rdent controllers the supervisor gave up restarting
	// (Restart.GaveUp): they stay down, and runbooks that need them fail.
	Down []string `json:"down,omitempty"`
	// PlaneLogs is the folder of the k0rdent controllers' logs ("": no
	// plane).
	PlaneLogs string `json:"-"`
	// K0rdent is the state of the cluster's k0rdent Management, where it
	// has one (--k0rdent on either backend).
	K0rdent *K0rdentState `json:"k0rdent,omitempty"`
}

// K0rdentState is a Management's state as kcm reports it.
type K0rdentState struct {
	Release string `json:"release"`
	Ready   bool   `json:"ready"`
	// Message is the Ready condition's message when not ready.
	Message string `json:"message,omitempty"`
	// Providers are the CAPI providers the Management exposes
	// (status.availableProviders).
	Providers []string `json:"providers,omitempty"`
}

// StatusOf reads the state of cluster name under root and asks its API
// server (for at most 20 s) whether it runs and which Kubernetes version
// it serves; a cluster that is not up is an error (ErrNoState).
func StatusOf(ctx context.Context, root, name string) (*Status, error) {
	s, err := ReadState(root, name)
	if err != nil {
		return nil, err
	}
	st := &Status{Name: s.Name, Backend: s.Backend, Server: s.Server, Kubeconfig: s.Kubeconfig, PID: s.PID,
		Started: s.Started.Format(time.RFC3339), PlaneLogs: s.PlaneLogs}
	if s.PlaneLogs != "" {
		if st.Restarts, err = supervisor.ReadRestarts(s.PlaneLogs); err != nil {
			st.Error = err.Error()
		}
		st.Down = DownOf(st.Restarts)
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if c, err := Reuse(ctx, s); err != nil {
		st.Error = err.Error()
	} else {
		st.Running = true
		st.KubernetesVersion, _ = ServerVersion(c)
		st.K0rdent = k0rdentState(ctx, c)
	}
	return st, nil
}

// WriteStatus writes st as text, json or yaml.
func WriteStatus(w io.Writer, format string, st *Status) error {
	switch format {
	case "json":
		data, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(data))
		return err
	case "yaml":
		data, err := yaml.Marshal(st)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	state := "running"
	if !st.Running {
		state = "not running: " + st.Error
	}
	fmt.Fprintf(w, "cluster:    %s (%s)\nstatus:     %s\nserver:     %s\nkubernetes: %s\nkubeconfig: %s\nstarted:    %s\n",
		st.Name, st.Backend, state, st.Server, st.KubernetesVersion, st.Kubeconfig, st.Started)
	if k := st.K0rdent; k != nil {
		ready := "Ready"
		if !k.Ready {
			ready = "not Ready: " + k.Message
		}
		fmt.Fprintf(w, "k0rdent:    Management kcm of release %s, %s\nproviders:  %s\n", k.Release, ready, strings.Join(k.Providers, ", "))
	}
	if st.PlaneLogs != "" {
		fmt.Fprintf(w, "restarts:   %d (k0rdent controllers; logs in %s)\n", len(st.Restarts), st.PlaneLogs)
		for _, r := range st.Restarts {
			fmt.Fprintf(w, "  %s\n", r)
		}
		if len(st.Down) > 0 {
			fmt.Fprintf(w, "down:       %s (not restarted again: runbooks that need them fail; kbook cluster down, then up, starts a new plane)\n", strings.Join(st.Down, ", "))
		}
	}
	return nil
}

// DownOf lists the processes given up on in rs (Restart.GaveUp), in
// order: what Status.Down says.
func DownOf(rs []supervisor.Restart) []string {
	var out []string
	for _, r := range rs {
		if r.GaveUp && !slices.Contains(out, r.Name) {
			out = append(out, r.Name)
		}
	}
	return out
}
