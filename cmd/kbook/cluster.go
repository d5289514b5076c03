package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

	"github.com/k0rdent/kbook/internal/cli"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/spf13/cobra"
)

func newClusterUpCmd() *cobra.Command {
	var (
		backend string
		given   cluster.Options
	)
	cmd := &cobra.Command{
		Use:  "up",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ch := changed(cmd)
			o, err := cluster.Choose(backend, ch["kubeconfig"] || ch["context"], given)
			if err != nil {
				return usageError(err)
			}
			reg, closeProcs := openProcs.Open(stderrLog)
			defer closeProcs()
			o.Logger, o.Procs = stderrLog, reg
			s, err := cluster.StartDetached(cmd.Context(), cluster.UpOptions{Root: cacheRoot(), Name: o.Name, Cluster: o})
			if err != nil {
				return exit(cmd.Context(), err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "export KUBECONFIG=%s\n", s.Kubeconfig)
			return nil
		},
	}
	clusterFlags(cmd.Flags(), &backend, &given, false)
	cmd.Flags().StringVar(&given.Name, "name", cluster.DefaultName, "cluster `name`, for several clusters side by side")
	return cmd
}

func newClusterDownCmd() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:  "down",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return failure(cluster.DownNamed(cmd.Context(), cacheRoot(), name, stderrLog))
		},
	}
	cmd.Flags().StringVar(&name, "name", cluster.DefaultName, "cluster `name`")
	return cmd
}

func newClusterStatusCmd() *cobra.Command {
	var name, output string
	cmd := &cobra.Command{
		Use:  "status",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := cluster.StatusOf(cmd.Context(), cacheRoot(), name)
			if err != nil {
				return failure(err)
			}
			return result(cluster.WriteStatus(cmd.OutOrStdout(), output, st), !st.Running)
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
		Use:  "kubeconfig",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return to{cmd}.bytes(cluster.KubeconfigOf(cacheRoot(), name, path))
		},
	}
	cmd.Flags().StringVar(&name, "name", cluster.DefaultName, "cluster `name`")
	cmd.Flags().BoolVar(&path, "path", false, "print the kubeconfig file's path instead of its content")
	return cmd
}

func newClusterAssetsCmd() *cobra.Command {
	var k0rdent string
	var assetsFrom assetsfrom.Source
	var apiOnly, inCluster bool
	cmd := &cobra.Command{
		Use:  "assets",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			release := ""
			if cmd.Flags().Changed("k0rdent") || apiOnly || inCluster {
				release = k0rdent
			}
			return to{cmd}.line(cluster.Assets(cmd.Context(), cluster.AssetsOptions{K0rdent: release, APIOnly: apiOnly, InCluster: inCluster, From: assetsFrom, Logger: stderrLog}))
		},
	}
	cmd.Flags().StringVar(&k0rdent, "k0rdent", controllers.DefaultK0rdentVersion, "prepare the local k0rdent plane of this `version` instead (known: "+strings.Join(controllers.K0rdentVersions(), ", ")+")")
	cmd.Flags().Var(&assetsFrom, "assets-from", "download, build or auto: where kube-apiserver and etcd (with --k0rdent: the controllers, from their released images) come from")
	cli.Choose(cmd.Flags(), "k0rdent", controllers.K0rdentVersions()...)
	cli.Choose(cmd.Flags(), "assets-from", assetsfrom.Names...)
	cmd.Flags().BoolVar(&apiOnly, "api-only", false, "with --k0rdent: fetch the CRDs and charts, build no controller")
	cmd.Flags().BoolVar(&inCluster, "in-cluster", false, "with --k0rdent: also build what k0rdent inside kind runs besides the plane's controllers (cert-manager, the Cluster API operator)")
	return cmd
}

func newClusterServeCmd() *cobra.Command {
	var name, assetsDir, k0rdent, backend, kindName, kindImage string
	var assetsFrom assetsfrom.Source
	var crds []string
	var apiOnly bool
	var kindWorkers int
	cmd := &cobra.Command{
		Use:    "serve",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.WithoutCancel(cmd.Context()), syscall.SIGTERM, os.Interrupt)
			defer stop()
			reg, closeProcs := openProcs.Open(stderrLog)
			defer closeProcs()
			o := cluster.Options{Backend: backend, CRDs: crds, AssetsDir: assetsDir, K0rdent: k0rdent, K0rdentAPIOnly: apiOnly, Logger: stderrLog, Procs: reg,
				Name: kindName, KindImage: kindImage, KindWorkers: kindWorkers, AssetsFrom: assetsFrom}
			return failure(cluster.Serve(ctx, cacheRoot(), o, name))
		},
	}
	cmd.Flags().StringVar(&name, "name", cluster.DefaultName, "cluster name")
	cmd.Flags().StringVar(&assetsDir, "assets", "", "directory with kube-apiserver and etcd")
	cmd.Flags().StringArrayVar(&crds, "crds", nil, "CRDs to install")
	cmd.Flags().StringVar(&k0rdent, "k0rdent", "", "k0rdent version whose plane to run")
	cmd.Flags().BoolVar(&apiOnly, "k0rdent-api-only", false, "k0rdent APIs only")
	cmd.Flags().StringVar(&backend, "cluster", cluster.Local, "local, or kind (with --k0rdent: its chart registry lives here)")
	cmd.Flags().StringVar(&kindName, "kind-name", "", "kind cluster name")
	cmd.Flags().StringVar(&kindImage, "kind-image", "", "kind node image")
	cmd.Flags().IntVar(&kindWorkers, "kind-workers", 0, "kind worker nodes")
	cmd.Flags().Var(&assetsFrom, "assets-from", "where the binaries and controllers come from")
	return cmd
}
