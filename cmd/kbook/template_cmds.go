package main

import (
	"io"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/template"
	"github.com/spf13/cobra"
)

func newTemplateValidateCmd() *cobra.Command {
	var r template.Request
	cmd := &cobra.Command{
		Use:  "validate PATH...",
		Args: cobra.MinimumNArgs(1),
	}
	checkCmd(cmd, template.Registry, func(cmd *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		r.Charts, r.Log = args, cmd.ErrOrStderr()
		reps, err := template.ValidateAll(cmd.Context(), r)
		return reps, nil, err
	})
	fl := cmd.Flags()
	fl.StringVar(&r.Options.Config, "config", "", "also validate and render this `file`: a ClusterDeployment (its spec.config) or a values file")
	fl.StringArrayVar(&r.CRDs, "crds", nil, "check objects against the CRDs in this `file or directory` (repeatable)")
	kubeconfigFlags(fl, &r.Kubeconfig, &r.Context)
	fl.StringArrayVar(&r.Providers, "provider", nil, "check the contracts the template pins against this provider: a ProviderTemplate chart, components or CRDs (repeatable; see kbook provider validate)")
	fl.StringArrayVar(&r.Policies, "policy", nil, "check the organisation policy in this `file` (repeatable)")
	fl.StringArrayVar(&r.Options.Registries, "registry", nil, "allow images from this `registry` (repeatable; default: global.registry)")
	fl.StringArrayVar(&r.Options.Disable, "disable", nil, "do not report this `rule` ID (repeatable)")
	fl.StringVar(&r.Options.ReleaseName, "release-name", "", "ClusterDeployment `name` to render with (default "+template.DefaultReleaseName+")")
	fl.StringVarP(&r.Options.Namespace, "namespace", "n", "", "ClusterDeployment `namespace` to render with (default "+template.DefaultNamespace+")")
	fl.BoolVar(&r.DependencyUpdate, "dependency-update", false, "run helm dependency update on each chart first (for --extend wrappers)")
	return cmd
}

func newTemplateRenderCmd() *cobra.Command {
	var (
		opts   template.RenderOptions
		output string
	)
	cmd := &cobra.Command{
		Use:  "render PATH",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			objs, err := template.RenderChart(args[0], opts)
			if err != nil {
				return failure(err)
			}
			return template.WriteObjects(cmd.OutOrStdout(), output, objs)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Config, "config", "", "the ClusterDeployment or values `file` to render with")
	fl.StringVar(&opts.ReleaseName, "release-name", "", "ClusterDeployment `name` (default "+template.DefaultReleaseName+")")
	fl.StringVarP(&opts.Namespace, "namespace", "n", "", "ClusterDeployment `namespace` (default "+template.DefaultNamespace+")")
	outputFlag(fl, &output, "yaml", "json")
	return cmd
}
