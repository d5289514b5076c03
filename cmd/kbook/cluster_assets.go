package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/cluster/local/download"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/spf13/cobra"
)

func newClusterAssetsCmd() *cobra.Command {
	var k0rdent, assetsFrom string
	var apiOnly bool
	cmd := &cobra.Command{
		Use:   "assets",
		Short: "Print the directory of the local backend's binaries, building them if needed",
		Long: `Print the directory holding kube-apiserver and etcd (and kubectl where none is
on the PATH) for the local backend, ready for KUBEBUILDER_ASSETS.

With KUBEBUILDER_ASSETS set (for example from setup-envtest), that directory is
checked and printed. Otherwise the binaries come from kbook's cache; the first
time, --assets-from says how they get there: download fetches setup-envtest's
released archive of Kubernetes ` + binaries.KubernetesVersion + ` (else the newest patch of its minor)
from setup-envtest's index ($` + download.EnvIndexURL + ` replaces it), checked against
the index's sha512 (seconds); build builds kube-apiserver ` + binaries.KubernetesVersion + ` and etcd
` + binaries.EtcdVersion + ` from pinned Go modules with the local Go toolchain (about ten
minutes on two cores); auto (the default) downloads and builds when the
download fails, saying so.

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
			src, err := binaries.ParseSource(assetsFrom)
			if err != nil {
				return usageError(err)
			}
			release := ""
			if cmd.Flags().Changed("k0rdent") || apiOnly {
				release = k0rdent
			}
			dir, err := cluster.Assets(cmd.Context(), release, apiOnly, src, stderrLogger{})
			if err != nil {
				return failure(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&k0rdent, "k0rdent", controllers.DefaultK0rdentVersion, "prepare the local k0rdent plane of this `version` instead (known: "+strings.Join(controllers.K0rdentVersions(), ", ")+")")
	cmd.Flags().StringVar(&assetsFrom, "assets-from", string(binaries.Auto), "download, build or auto: where kube-apiserver and etcd (with --k0rdent: the controllers, from their released images) come from")
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
