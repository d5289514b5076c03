package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/spf13/cobra"
)

// stderrLogger prints progress lines to stderr.
type stderrLogger struct{}

func (stderrLogger) Infof(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

func newClusterCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use: "cluster",
	}
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
			o.Logger = stderrLogger{}
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
	switch {
	case err != nil && ctx.Err() != nil:
		return &exitError{findings.ExitInterrupted, ctx.Err()}
	case err != nil:
		return failure(err)
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

func newClusterStatusCmd() *cobra.Command {
	var name, output string
	cmd := &cobra.Command{
		Use:  "status",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := cluster.StatusOf(cmd.Context(), cacheRoot(), name)
			if err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			if err := cluster.WriteStatus(cmd.OutOrStdout(), output, st); err != nil {
				return err
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
		Use:  "kubeconfig",
		Args: cobra.NoArgs,
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
