package main

import (
	"io"
	"strings"

	"github.com/k0rdent/kbook/internal/cli"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/helmrepo"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/output"
	"github.com/k0rdent/kbook/internal/template"
	"github.com/k0rdent/kbook/internal/template/manifest"
	"github.com/k0rdent/kbook/internal/template/publish"
	"github.com/k0rdent/kbook/internal/template/scaffold"
	"github.com/spf13/cobra"
)

func newTemplateInitCmd() *cobra.Command {
	var r scaffold.Options
	cmd := &cobra.Command{
		Use:  "init NAME",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r.Name, r.CacheDir, r.Logger = args[0], cacheRoot(), stderrLog
			c, err := scaffold.New(cmd.Context(), r)
			if err != nil {
				return exit(cmd.Context(), err)
			}
			return to{cmd}.created(c, nil)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&r.Provider, "provider", "docker", "provider set: "+strings.Join(scaffold.ProviderNames(), ", "))
	cli.Choose(fl, "provider", scaffold.ProviderNames()...)
	fl.StringVar(&r.KindImage, "kind-image", "", "with --provider docker: the node `image` the machines boot from: build (kbook's own node image and CAPD load balancer image, built here: kbook cluster image) or an image reference (default: kindest/node and kindest/haproxy from the registry)")
	cli.Choose(fl, "kind-image", cluster.KindImageBuild)
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
	outputFlag(fl, &o.Format, output.ManifestFormats...)
	return cmd
}

func newTemplateValidateCmd() *cobra.Command {
	var o template.Options
	cmd := &cobra.Command{
		Use:  "validate PATH...",
		Args: cobra.MinimumNArgs(1),
	}
	checkCmd(cmd, template.Registry, func(cmd *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		o.Charts, o.CacheDir, o.IOStreams = args, cacheRoot(), streams(cmd)
		o.Logger = log.To{W: o.ErrOut}
		reps, err := template.Validate(cmd.Context(), o)
		return reps, nil, err
	})
	fl := cmd.Flags()
	fl.StringVar(&o.Config, "config", "", "also validate and render this `file`: a ClusterDeployment (its spec.config) or a values file")
	fl.StringVar(&o.K0rdent, "k0rdent", "", "check objects against the CRDs of this k0rdent release `version` (k0rdent, Flux, Sveltos, Cluster API, kubeadm, CAPD; read from its Go modules as kbook run --k0rdent installs them; default: "+controllers.DefaultK0rdentVersion+"; "+template.NoRelease+": only --crds; known: "+strings.Join(controllers.K0rdentVersions(), ", ")+")")
	cli.Choose(fl, "k0rdent", append(controllers.K0rdentVersions(), template.NoRelease)...)
	fl.StringArrayVar(&o.CRDs, "crds", nil, "also check objects against the CRDs in this `file or directory` (repeatable; they replace the release's CRDs of the same name)")
	kubeconfigFlags(fl, &o.Kubeconfig, &o.Context)
	fl.StringArrayVar(&o.Providers, "provider", nil, "check the contracts the template pins against this provider: a ProviderTemplate chart, components or CRDs (repeatable; see kbook provider validate)")
	fl.StringArrayVar(&o.Policies, "policy", nil, "check the organisation policy in this `file` (repeatable)")
	fl.StringArrayVar(&o.Registries, "registry", nil, "allow images from this `registry` (repeatable; default: global.registry)")
	fl.StringArrayVar(&o.Disable, "disable", nil, "do not report this `rule` ID (repeatable)")
	fl.StringVar(&o.ReleaseName, "release-name", "", "ClusterDeployment `name` to render with (default "+template.DefaultReleaseName+")")
	fl.StringVarP(&o.Namespace, "namespace", "n", "", "ClusterDeployment `namespace` to render with (default "+template.DefaultNamespace+")")
	fl.BoolVar(&o.DependencyUpdate, "dependency-update", false, "run helm dependency update on each chart first (for --extend wrappers)")
	return cmd
}

func newTemplateRenderCmd() *cobra.Command {
	var (
		opts   template.RenderOptions
		format string
	)
	cmd := &cobra.Command{
		Use:  "render PATH",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			objs, err := template.RenderChart(args[0], opts)
			if err != nil {
				return failure(err)
			}
			return template.WriteObjects(cmd.OutOrStdout(), format, objs)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Config, "config", "", "the ClusterDeployment or values `file` to render with")
	fl.StringVar(&opts.ReleaseName, "release-name", "", "ClusterDeployment `name` (default "+template.DefaultReleaseName+")")
	fl.StringVarP(&opts.Namespace, "namespace", "n", "", "ClusterDeployment `namespace` (default "+template.DefaultNamespace+")")
	outputFlag(fl, &format, output.ManifestFormats...)
	return cmd
}

func newTemplatePublishCmd() *cobra.Command {
	var o publish.Options
	cmd := &cobra.Command{
		Use:  "publish CHART",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Chart = args[0]
			res, err := publish.Publish(cmd.Context(), o)
			return to{cmd}.line(res, err)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.Namespace, "namespace", "n", "", "`namespace` of the HelmRepository (default: the kubeconfig context's)")
	fl.StringVar(&o.Repo, "repo", helmrepo.DefaultRepoName, "`name` of the HelmRepository")
	fl.StringVar(&o.URL, "repo-url", "", "`URL` of the kbook repository (default: the one serving the cluster)")
	fl.StringVar(&o.Interval, "interval", "", "how often Flux checks the repository, a `duration` (default 10m0s)")
	kubeconfigFlags(fl, &o.Kubeconfig, &o.Context)
	return cmd
}
