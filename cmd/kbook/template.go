package main

import (
	"strings"

	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/k0rdent/manifest"
	"github.com/k0rdent/kbook/internal/template/scaffold"
	"github.com/spf13/cobra"
)

func newTemplateInitCmd() *cobra.Command {
	var r scaffold.Request
	cmd := &cobra.Command{
		Use:  "init NAME",
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
		Use:  "manifest PATH",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return to{cmd}.bytes(manifest.ForPath(args[0], o))
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
