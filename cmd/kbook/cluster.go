package main

import (
	"fmt"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/spf13/cobra"
)

func newClusterCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "cluster"}
	cmd.AddCommand(newClusterUpCmd(), newClusterDownCmd(), newClusterStatusCmd(), newClusterKubeconfigCmd(), newClusterAssetsCmd(), newClusterServeCmd())
	return cmd
}

func cacheRoot() string { return cache.DefaultDir() }

func newClusterUpCmd() *cobra.Command {
	var f clusterFlags
	cmd := &cobra.Command{
		Use:  "up",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ch := changed(cmd)
			o, err := cluster.Choose(f.backend, ch["kubeconfig"] || ch["context"], f.o)
			if err != nil {
				return usageError(err)
			}
			o.Logger = stderrLog
			return clusterUp(cmd, o.Name, o)
		},
	}
	f.register(cmd, false)
	cmd.Flags().StringVar(&f.o.Name, "name", cluster.DefaultName, "cluster `name`, for several clusters side by side")
	return cmd
}

func clusterUp(cmd *cobra.Command, name string, o cluster.Options) error {
	ctx := cmd.Context()
	sweepProcs(o.Logger)
	s, err := cluster.StartDetached(ctx, cluster.UpOptions{Root: cacheRoot(), Name: name, Cluster: o})
	if err != nil {
		return exit(ctx, err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "export KUBECONFIG=%s\n", s.Kubeconfig)
	return nil
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
			if err := cluster.WriteStatus(cmd.OutOrStdout(), output, st); err != nil {
				return err
			}
			if !st.Running {
				return code(findings.ExitErrors)
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
		Use:  "kubeconfig",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			data, err := cluster.KubeconfigOf(cacheRoot(), name, path)
			if err != nil {
				return failure(err)
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
	cmd.Flags().StringVar(&name, "name", cluster.DefaultName, "cluster `name`")
	cmd.Flags().BoolVar(&path, "path", false, "print the kubeconfig file's path instead of its content")
	return cmd
}
