package main

import (
	"github.com/k0rdent/kbook/internal/provider/conformance"
	"github.com/spf13/cobra"
)

func newProviderConformanceCmd() *cobra.Command {
	var (
		r      conformance.Request
		output string
	)
	cmd := &cobra.Command{
		Use:  "conformance PATH...",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r.Paths, r.Log, r.Options.Logger, r.OpenProcs = args, stderrLog, stderrLog, openProcs
			res, err := conformance.OnCluster(cmd.Context(), r)
			if err != nil {
				return exit(cmd.Context(), err)
			}
			return result(conformance.Write(cmd.OutOrStdout(), output, res), res.Failed() > 0)
		},
	}
	fl := cmd.Flags()
	kubeconfigFlags(fl, &r.Kubeconfig, &r.Context)
	fl.BoolVar(&r.Options.Controller, "controller", false, "the provider's controller runs against the cluster: wait for it to set providerID and readiness")
	fl.StringArrayVar(&r.Samples, "sample", nil, "create this object `file` instead of a minimal one for its kind (repeatable)")
	fl.DurationVar(&r.Options.Timeout, "timeout", 0, "how long to wait for the controller (default 2m)")
	fl.StringVarP(&r.Options.Namespace, "namespace", "n", "", "create the objects in this existing `namespace` (default: a new kbook-conformance-* one, deleted at the end)")
	fl.BoolVar(&r.Options.Keep, "keep", false, "leave the namespace, objects and roles kbook created")
	outputFlag(fl, &output, "text", "json")
	return cmd
}
