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
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/spf13/cobra"
)

func newClusterAssetsCmd() *cobra.Command {
	var k0rdent, assetsFrom string
	var apiOnly bool
	cmd := &cobra.Command{
		Use:  "assets",
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
			dir, err := cluster.Assets(cmd.Context(), release, apiOnly, src, stderrLog)
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
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.WithoutCancel(cmd.Context()), syscall.SIGTERM, os.Interrupt)
			defer stop()
			reg, closeProcs := openProcs.Open(stderrLog)
			defer closeProcs()
			o := cluster.Options{Backend: cluster.Local, CRDs: crds, AssetsDir: assetsDir, K0rdent: k0rdent, K0rdentAPIOnly: apiOnly, Logger: stderrLog, Procs: reg}
			return failure(cluster.Serve(ctx, cacheRoot(), o, name))
		},
	}
	cmd.Flags().StringVar(&name, "name", cluster.DefaultName, "cluster name")
	cmd.Flags().StringVar(&assetsDir, "assets", "", "directory with kube-apiserver and etcd")
	cmd.Flags().StringArrayVar(&crds, "crds", nil, "CRDs to install")
	cmd.Flags().StringVar(&k0rdent, "k0rdent", "", "k0rdent version whose plane to run")
	cmd.Flags().BoolVar(&apiOnly, "k0rdent-api-only", false, "k0rdent APIs only")
	return cmd
}
