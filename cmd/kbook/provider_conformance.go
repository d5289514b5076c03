package main

import (
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/provider/conformance"
	"github.com/spf13/cobra"
)

func newProviderConformanceCmd() *cobra.Command {
	var (
		r      conformance.Request
		kube   kubeFlags
		output string
	)
	cmd := &cobra.Command{
		Use:   "conformance PATH...",
		Short: "Check a provider live: CRDs, contract fields at CAPI's paths, RBAC aggregation",
		Long: `Install the provider's CRDs (from the same inputs as provider validate) into a
real API server - the embedded local one by default, or --kubeconfig - and
check what an offline check cannot: a minimal object of each contract
resource is created from its schema, the contract fields are written (status
through the status subresource) and read back at the paths Cluster API reads
for the CRD's labelled contract, and SubjectAccessReviews check that the
provider's aggregated ClusterRoles give Cluster API's and kcm's managers what
they need. With --controller the provider's controller must be running
against the cluster: kbook waits for it to set providerID and readiness.

The namespace, objects and roles kbook creates are deleted at the end; the
CRDs stay installed (they are cluster-wide). Exit status: 0 all checks
passed, 1 a check failed, 2 bad input.`,
		Example: `  kbook provider conformance infrastructure-components.yaml ./chart
  kbook provider conformance config/crd/bases --controller --sample machine.yaml --kubeconfig ~/.kube/dev`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r.Paths, r.Kubeconfig, r.Context, r.Log, r.Options.Logger = args, kube.kubeconfig, kube.context, stderrLogger{}, stderrLogger{}
			// The local API server dies with kbook, and a kill -9 is
			// reaped by the next kbook (package proc).
			procs, closeProcs := openProcs(stderrLogger{})
			defer closeProcs()
			r.Procs = procs
			res, err := conformance.OnCluster(cmd.Context(), r)
			if err != nil {
				return exit(cmd.Context(), err)
			}
			if err := conformance.Write(cmd.OutOrStdout(), output, res); err != nil {
				return err
			}
			if res.Failed() > 0 {
				return &exitError{findings.ExitErrors, nil}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	kube.register(fl)
	fl.BoolVar(&r.Options.Controller, "controller", false, "the provider's controller runs against the cluster: wait for it to set providerID and readiness")
	fl.StringArrayVar(&r.Samples, "sample", nil, "create this object `file` instead of a minimal one for its kind (repeatable)")
	fl.DurationVar(&r.Options.Timeout, "timeout", 0, "how long to wait for the controller (default 2m)")
	fl.StringVarP(&r.Options.Namespace, "namespace", "n", "", "create the objects in this existing `namespace` (default: a new kbook-conformance-* one, deleted at the end)")
	fl.BoolVar(&r.Options.Keep, "keep", false, "leave the namespace, objects and roles kbook created")
	outputFlag(fl, &output, "text", "json")
	return cmd
}
