package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/cluster/plane"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// stderrLogger prints progress lines to stderr.
type stderrLogger struct{}

func (stderrLogger) Infof(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

func newClusterCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Start, stop and inspect a cluster to work with interactively",
		Long: `Bring up the same kind of cluster a runbook sees, to try commands by hand.

'kbook cluster up' starts a local API server (or a kind cluster) that keeps
running after the command returns; 'kbook run --reuse' runs runbooks against
it instead of starting a new one; 'kbook cluster down' stops it.`,
	}
	cmd.AddCommand(newClusterUpCmd(), newClusterDownCmd(), newClusterStatusCmd(), newClusterKubeconfigCmd(), newClusterAssetsCmd(), newClusterServeCmd())
	return cmd
}

func cacheRoot() string { return cache.DefaultDir() }

func newClusterUpCmd() *cobra.Command {
	var f clusterFlags
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start a cluster that keeps running",
		Example: `  # A local API server serving k0rdent v1.11.4's CRDs (k0rdent, Flux, Sveltos, Cluster API)
  kbook cluster up --k0rdent v1.11.4 --k0rdent-api-only
  export KUBECONFIG=$(kbook cluster kubeconfig --path)

  # ...or with the CRD files you have
  kbook cluster up --crds ./my-crds
  export KUBECONFIG=$(kbook cluster kubeconfig --path)

  # A local API server running the real k0rdent v1.11.4 controllers
  kbook cluster up --k0rdent v1.11.4

  # A kind cluster
  kbook cluster up --cluster kind`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := f.options(cmd, stderrLogger{})
			if err != nil {
				return usageError(err)
			}
			return clusterUp(cmd, f.name, o)
		},
	}
	f.register(cmd, false)
	cmd.Flags().StringVar(&f.name, "name", cluster.DefaultName, "cluster `name`, for several clusters side by side")
	return cmd
}

func clusterUp(cmd *cobra.Command, name string, o cluster.Options) error {
	ctx := cmd.Context()
	sweepProcs(o.Logger)
	s, err := cluster.StartDetached(ctx, cluster.UpOptions{Root: cacheRoot(), Name: name, Cluster: o})
	switch {
	case err != nil && ctx.Err() != nil:
		return &exitError{findings.ExitInterrupted, ctx.Err()}
	case err != nil:
		return failure(err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "export KUBECONFIG=%s\n", s.Kubeconfig)
	return nil
}

func newClusterAssetsCmd() *cobra.Command {
	var k0rdent string
	var apiOnly bool
	cmd := &cobra.Command{
		Use:   "assets",
		Short: "Print the directory of the local backend's binaries, building them if needed",
		Long: `Print the directory holding kube-apiserver and etcd (and kubectl where none is
on the PATH) for the local backend, ready for KUBEBUILDER_ASSETS.

With KUBEBUILDER_ASSETS set (for example from setup-envtest), that directory is
checked and printed. Otherwise the binaries come from kbook's cache; the first
time, they are built from pinned Go modules with the local Go toolchain:
kube-apiserver ` + binaries.KubernetesVersion + ` and etcd ` + binaries.EtcdVersion + `, about ten minutes on two cores.

With --k0rdent, it prints the cache directory of that k0rdent release
instead: the kcm, Flux, Sveltos and Cluster API module folders the local
k0rdent plane reads its CRDs, webhooks and charts from (fetched through the
Go module proxy, seconds), and the controllers built from those modules
(kcm, source-controller, helm-controller, Cluster API core, kubeadm
bootstrap and control plane, CAPD; about 25 minutes on two cores, once).
--api-only fetches the module folders alone.`,
		Example: `  export KUBEBUILDER_ASSETS=$(kbook cluster assets)

  # Build the k0rdent v1.11.4 controllers ahead of time
  kbook cluster assets --k0rdent v1.11.4`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("k0rdent") || apiOnly {
				r, err := controllers.K0rdent(k0rdent)
				if err != nil {
					return usageError(err)
				}
				p, err := controllers.K0rdentDir(cmd.Context(), r, controllers.APIOnly(apiOnly), controllers.K0rdentLogger(stderrLogger{}))
				if err != nil {
					return &exitError{findings.ExitErrors, err}
				}
				fmt.Fprintln(cmd.OutOrStdout(), p.Dir)
				return nil
			}
			dir, err := binaries.Dir(cmd.Context(), binaries.WithLogger(stderrLogger{}))
			if err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&k0rdent, "k0rdent", controllers.DefaultK0rdentVersion, "prepare the local k0rdent plane of this `version` instead (known: "+strings.Join(controllers.K0rdentVersions(), ", ")+")")
	cmd.Flags().BoolVar(&apiOnly, "api-only", false, "with --k0rdent: fetch the CRDs and charts, build no controller")
	return cmd
}

func newClusterServeCmd() *cobra.Command {
	var name, assetsDir, k0rdent string
	var crds []string
	var apiOnly bool
	cmd := &cobra.Command{
		Use:    "serve",
		Short:  "Hold a local cluster until stopped (run by kbook cluster up)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.WithoutCancel(cmd.Context()), syscall.SIGTERM, os.Interrupt)
			defer stop()
			reg, closeProcs := openProcs(stderrLogger{})
			defer closeProcs()
			o := cluster.Options{Backend: cluster.Local, CRDs: crds, AssetsDir: assetsDir, K0rdent: k0rdent, K0rdentAPIOnly: apiOnly, Logger: stderrLogger{}, Procs: reg}
			if err := cluster.Serve(ctx, cacheRoot(), o, name); err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", cluster.DefaultName, "cluster name")
	cmd.Flags().StringVar(&assetsDir, "assets", "", "directory with kube-apiserver and etcd")
	cmd.Flags().StringArrayVar(&crds, "crds", nil, "CRDs to install")
	cmd.Flags().StringVar(&k0rdent, "k0rdent", "", "k0rdent version whose plane to run")
	cmd.Flags().BoolVar(&apiOnly, "k0rdent-api-only", false, "k0rdent APIs only")
	return cmd
}

func newClusterDownCmd() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Stop a cluster started with kbook cluster up",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := cluster.ReadState(cacheRoot(), name)
			if errors.Is(err, cluster.ErrNoState) {
				fmt.Fprintf(os.Stderr, "cluster %q is not up\n", name)
				return nil
			}
			if err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			if err := cluster.Down(cmd.Context(), cacheRoot(), s, stderrLogger{}); err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			fmt.Fprintf(os.Stderr, "cluster %q (%s) stopped\n", name, s.Backend)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", cluster.DefaultName, "cluster `name`")
	return cmd
}

// clusterStatus is what kbook cluster status reports.
type clusterStatus struct {
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
	Restarts []plane.Restart `json:"restarts,omitempty"`
}

func newClusterStatusCmd() *cobra.Command {
	var name, output string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether a cluster started with kbook cluster up is running",
		Long:  "Show the cluster's backend, API server, kubeconfig and Kubernetes version.\n\nExit status: 0 running, 1 not running or not up, 2 bad flags.",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := cluster.ReadState(cacheRoot(), name)
			if err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			st := clusterStatus{Name: s.Name, Backend: s.Backend, Server: s.Server, Kubeconfig: s.Kubeconfig, PID: s.PID, Started: s.Started.Format(time.RFC3339)}
			if s.PlaneLogs != "" {
				if st.Restarts, err = plane.ReadRestarts(s.PlaneLogs); err != nil {
					st.Error = err.Error()
				}
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 20*time.Second)
			defer cancel()
			if c, err := cluster.Reuse(ctx, s); err != nil {
				st.Error = err.Error()
			} else {
				st.Running = true
				st.KubernetesVersion, _ = cluster.ServerVersion(c)
			}
			out := cmd.OutOrStdout()
			switch output {
			case "json":
				data, _ := json.MarshalIndent(st, "", "  ")
				fmt.Fprintln(out, string(data))
			case "yaml":
				data, _ := yaml.Marshal(st)
				fmt.Fprint(out, string(data))
			default:
				state := "running"
				if !st.Running {
					state = "not running: " + st.Error
				}
				fmt.Fprintf(out, "cluster:    %s (%s)\nstatus:     %s\nserver:     %s\nkubernetes: %s\nkubeconfig: %s\nstarted:    %s\n",
					st.Name, st.Backend, state, st.Server, st.KubernetesVersion, st.Kubeconfig, st.Started)
				if s.PlaneLogs != "" {
					fmt.Fprintf(out, "restarts:   %d (k0rdent controllers; logs in %s)\n", len(st.Restarts), s.PlaneLogs)
					for _, r := range st.Restarts {
						fmt.Fprintf(out, "  %s\n", r)
					}
				}
			}
			if !st.Running {
				return &exitError{findings.ExitErrors, nil}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", cluster.DefaultName, "cluster `name`")
	outputFlag(cmd.Flags(), &output, "text", "json", "yaml")
	return cmd
}

func newClusterKubeconfigCmd() *cobra.Command {
	var name string
	var path bool
	cmd := &cobra.Command{
		Use:     "kubeconfig",
		Short:   "Print the kubeconfig of a cluster started with kbook cluster up",
		Example: "  kbook cluster kubeconfig > kbook.kubeconfig\n  export KUBECONFIG=$(kbook cluster kubeconfig --path)",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := cluster.ReadState(cacheRoot(), name)
			if err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			if path {
				fmt.Fprintln(cmd.OutOrStdout(), s.Kubeconfig)
				return nil
			}
			data, err := os.ReadFile(s.Kubeconfig)
			if err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
	cmd.Flags().StringVar(&name, "name", cluster.DefaultName, "cluster `name`")
	cmd.Flags().BoolVar(&path, "path", false, "print the kubeconfig file's path instead of its content")
	return cmd
}
