// A fixture cmd/kbook for TestVerbOwnersFixture: kbook serve calls
// package site as it runs, beside its own package serve.
package main

import (
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/serve"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/k0rdent/kbook/internal/upgrade"
	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{Use: "kbook"}
	root.AddCommand(newServeCmd(),
		group("upgrade", newUpgradeCheckCmd(), newUpgradeApplyCmd()))
	return root
}

func group(use string, cmds ...*cobra.Command) *cobra.Command {
	g := &cobra.Command{Use: use}
	g.AddCommand(cmds...)
	return g
}

func newServeCmd() *cobra.Command {
	var o serve.Options
	return &cobra.Command{
		Use: "serve [DIR]",
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := site.Load(args[0])
			if err != nil {
				return err
			}
			return serve.Serve(cmd.Context(), o, p)
		},
	}
}

func newUpgradeCheckCmd() *cobra.Command {
	var r upgrade.Request
	return &cobra.Command{
		Use:  "check [CLUSTERDEPLOYMENT] --to TEMPLATE",
		RunE: func(cmd *cobra.Command, _ []string) error { return r.Findings(cmd.Context()) },
	}
}

func newUpgradeApplyCmd() *cobra.Command {
	var r upgrade.Request
	cmd := &cobra.Command{Use: "apply CLUSTERDEPLOYMENT"}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return findings.Input(upgrade.Apply(cmd.Context(), r))
	}
	return cmd
}
