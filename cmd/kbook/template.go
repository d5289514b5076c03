package main

import (
	"fmt"
	"strings"

	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/k0rdent/manifest"
	"github.com/k0rdent/kbook/internal/template/scaffold"
	"github.com/spf13/cobra"
)

func newTemplateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "template",
		Short: "Create, check and package custom k0rdent ClusterTemplates",
		Long: `Tools for ClusterTemplate authors: scaffold a chart, validate it against what
kcm accepts plus security and organisation policies, render it as kcm would,
and write the manifests that install it.`,
	}
	cmd.AddCommand(newTemplateInitCmd(), newTemplateManifestCmd(), newTemplatePublishCmd())
	addTemplateCommands(cmd)
	return cmd
}

func newTemplateInitCmd() *cobra.Command {
	var r scaffold.Request
	var providers []string
	for _, p := range scaffold.Providers {
		providers = append(providers, fmt.Sprintf("  %-10s %s", p.Name, p.Description))
	}
	cmd := &cobra.Command{
		Use:   "init NAME",
		Short: "Scaffold a new ClusterTemplate chart",
		Long: `Write a new ClusterTemplate Helm chart into NAME/ (or --dir): Chart.yaml with
the annotations kcm reads, values.yaml, a values.schema.json that accepts the
values kcm injects, CAPI v1beta2 objects named from the release name, and
ci/*.yaml example configs.

Providers (--provider):
` + strings.Join(providers, "\n") + `

With --extend, the chart instead wraps an existing template as a Helm
dependency and layers the organisation's requirements on it (registry,
labels, defaults, extra manifests) without copying it.`,
		Example: `  kbook template init acme-docker
  kbook template init acme-remote --provider k0smotron --k8s-version v1.34.1
  kbook template init acme-aws --extend ./aws-standalone-cp-1.0.20.tgz --registry registry.acme.io --label acme.io/cost-center=platform`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r.Name = args[0]
			return to{cmd}.created(scaffold.New(r))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&r.Provider, "provider", "docker", "provider set: "+strings.Join(scaffold.ProviderNames(), ", "))
	fl.StringVar(&r.K8sVersion, "k8s-version", "", "Kubernetes version `vX.Y.Z` of the clusters (default: the provider's)")
	fl.StringVar(&r.Dir, "dir", "", "directory to create (default: NAME)")
	fl.StringVar(&r.Extend, "extend", "", "wrap this template: a chart `directory, .tgz or REPO/CHART@VERSION`")
	fl.StringVar(&r.Registry, "registry", "", "with --extend: the organisation's image `registry` (global.registry)")
	fl.StringArrayVar(&r.Labels, "label", nil, "with --extend: a `KEY=VALUE` label for every cluster (repeatable)")
	return cmd
}

func newTemplateManifestCmd() *cobra.Command {
	var o manifest.Options
	cmd := &cobra.Command{
		Use:   "manifest PATH",
		Short: "Print the ClusterTemplate (and HelmRepository) that install a chart",
		Long: `Print the k0rdent objects that install the chart at PATH (directory or .tgz)
as a template: a ClusterTemplate whose spec.helm.chartSpec names the chart,
its version and the HelmRepository it is published in, with every field the
API server requires. With --repo-url, the Flux HelmRepository is printed
too, labelled k0rdent.mirantis.com/managed: "true" as kcm requires.

Exit status: 0 printed, 1 the chart's metadata is invalid, 2 bad input (a
missing or unloadable chart, bad flags), as template validate for the same
chart.`,
		Example: `  kbook template manifest ./acme-docker --repo acme-templates --repo-url oci://registry.acme.io/charts > install.yaml
  kbook template manifest ./acme-docker --repo acme-templates | kubectl apply --dry-run=server -f -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := manifest.ForPath(args[0], o)
			if err != nil {
				return failure(err)
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Repo, "repo", "", "`name` of the HelmRepository the chart is published in (required)")
	fl.StringVar(&o.RepoURL, "repo-url", "", "also print the HelmRepository, pointing at this `URL` (oci:// or https://)")
	fl.StringVarP(&o.Namespace, "namespace", "n", k0rdent.SystemNamespace, "`namespace` of the objects")
	fl.StringVar(&o.Name, "name", "", "ClusterTemplate `name` (default: CHART-VERSION with dots as dashes)")
	fl.StringVar(&o.Interval, "interval", manifest.DefaultInterval, "how often Flux checks the source, a `duration` (written as kcm stores it: 10m becomes 10m0s)")
	return cmd
}
