package main

import (
	"io"

	"github.com/k0rdent/kbook/internal/cli"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/provider"
	"github.com/k0rdent/kbook/internal/provider/conformance"
	"github.com/k0rdent/kbook/internal/provider/manifest"
	"github.com/k0rdent/kbook/internal/provider/scaffold"
	"github.com/spf13/cobra"
)

func newProviderInitCmd() *cobra.Command {
	var o scaffold.Options
	cmd := &cobra.Command{
		Use:  "init NAME",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return to{cmd}.created(scaffold.New(cmd.Context(), o))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Dir, "dir", "", "directory to create (default cluster-api-provider-NAME)")
	fl.StringVar(&o.Group, "group", "", "API `group` of the provider's kinds (default infrastructure.cluster.x-k8s.io)")
	fl.StringVar(&o.APIVersion, "api-version", "", "CRD `version` implementing the v1beta2 contract (default v1alpha1)")
	fl.StringVar(&o.Kind, "kind", "", "kind `prefix`: <prefix>Cluster, <prefix>Machine (default NAME in CamelCase)")
	fl.StringVar(&o.Version, "version", "", "provider release the chart installs, `vX.Y.Z` (default v0.1.0)")
	fl.StringVar(&o.ComponentsURL, "components-url", "", "`URL` of the release's infrastructure-components.yaml, as clusterctl reads it: a GitHub release (https://github.com/OWNER/REPO/releases/VERSION/FILE), a GitLab package or file:// (default: the --module's GitHub repository, else a placeholder)")
	fl.BoolVar(&o.Controller, "controller", false, "also write a Go provider (controller-runtime, v1beta2 contract) around the chart")
	fl.StringVar(&o.Module, "module", "", "with --controller: Go module `path` (default example.com/cluster-api-provider-NAME)")
	fl.StringVar(&o.Image, "image", "", "with --controller: controller image `repository` (default registry.example.com/cluster-api-provider-NAME)")
	return cmd
}

func newProviderValidateCmd() *cobra.Command {
	var opts provider.Options
	cmd := &cobra.Command{
		Use:  "validate PATH...",
		Args: cobra.MinimumNArgs(1),
	}
	checkCmd(cmd, provider.Registry, func(cmd *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		opts.Paths = args
		res, err := provider.Check(cmd.Context(), opts)
		if err != nil {
			return nil, nil, err
		}
		return []*findings.Report{res.Report}, func(w io.Writer) { provider.WriteVariables(w, res.Variables) }, nil
	})
	fl := cmd.Flags()
	fl.StringVar((*string)(&opts.Target), "target", string(provider.TargetK0rdent), "what the provider must work with: k0rdent (CAPI contract and kcm) or capi (the contract alone)")
	cli.Choose(fl, "target", string(provider.TargetK0rdent), string(provider.TargetCAPI))
	fl.StringArrayVar(&opts.Registries, "registry", nil, "allow controller images from this `registry` (repeatable; default: not checked)")
	fl.StringArrayVar(&opts.Disable, "disable", nil, "do not report this `rule` ID (repeatable)")
	fl.StringVar(&opts.Render.Registry, "global-registry", "", "render charts with global.registry set to this `registry`, as kcm does with --global-registry")
	return cmd
}

func newProviderManifestCmd() *cobra.Command {
	var o manifest.Options
	cmd := &cobra.Command{
		Use:  "manifest CHART",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return to{cmd}.bytes(manifest.Manifest(args[0], o))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Repo, "repo", "", "`name` of the HelmRepository in kcm-system the chart is published in (required)")
	fl.StringVar(&o.Name, "name", "", "ProviderTemplate `name` (default CHART-VERSION with dots as dashes)")
	fl.StringVar(&o.Interval, "interval", "", "how often Flux checks the chart, a `duration` (default 10m0s)")
	outputFlag(fl, &o.Format, output.ManifestFormats...)
	fl.StringArrayVar(&o.CRDs, "crds", nil, "check the objects against k0rdent's CRDs in this `file or directory` (repeatable)")
	fl.StringVar(&o.ConfigFile, "config", "", "values `file` for the Management entry's config")
	return cmd
}

func newProviderConformanceCmd() *cobra.Command {
	var (
		o      conformance.Options
		format string
	)
	cmd := &cobra.Command{
		Use:  "conformance PATH...",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Paths, o.Logger, o.OpenProcs = args, stderrLog, openProcs
			res, err := conformance.Run(cmd.Context(), o)
			if err != nil {
				return exit(cmd.Context(), err)
			}
			return result(conformance.Write(cmd.OutOrStdout(), format, res), res.Failed() > 0)
		},
	}
	fl := cmd.Flags()
	kubeconfigFlags(fl, &o.Kubeconfig, &o.Context)
	fl.BoolVar(&o.Controller, "controller", false, "the provider's controller runs against the cluster: wait for it to set providerID and readiness")
	fl.StringArrayVar(&o.Samples, "sample", nil, "create this object `file` instead of a minimal one for its kind (repeatable)")
	fl.DurationVar(&o.Timeout, "timeout", 0, "how long to wait for the controller (default 2m)")
	fl.StringVarP(&o.Namespace, "namespace", "n", "", "create the objects in this existing `namespace` (default: a new kbook-conformance-* one, deleted at the end)")
	fl.BoolVar(&o.Keep, "keep", false, "leave the namespace, objects and roles kbook created")
	outputFlag(fl, &format, output.Formats...)
	return cmd
}
