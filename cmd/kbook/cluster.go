package main

import (
	"fmt"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/proc"
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
			o.Logger = stderrLog
			proc.SweepLogged(procsRoot(), o.Logger)
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
