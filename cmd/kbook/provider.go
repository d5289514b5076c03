package main

import (
	"io"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/provider"
	"github.com/k0rdent/kbook/internal/provider/scaffold"
	"github.com/spf13/cobra"
)

func newProviderCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "provider",
		Short: "Scaffold, check and register custom Cluster API providers for k0rdent",
		Long: `Tools for Cluster API provider authors integrating a provider into k0rdent
without modifying k0rdent: scaffold a ProviderTemplate chart, validate the
provider against the Cluster API contract, clusterctl, what kcm reads and a
security policy, print the objects that register it with k0rdent, and check
it live against an API server.`,
	}
	cmd.AddCommand(newProviderInitCmd(), newProviderValidateCmd(), newProviderManifestCmd(), newProviderConformanceCmd())
	return cmd
}

func newProviderInitCmd() *cobra.Command {
	var o scaffold.Options
	cmd := &cobra.Command{
		Use:   "init NAME",
		Short: "Scaffold a ProviderTemplate chart, and with --controller a Go provider, for a custom infrastructure provider",
		Long: `Write a k0rdent ProviderTemplate chart for the infrastructure provider NAME
into cluster-api-provider-NAME/ (or --dir): Chart.yaml with the provider and
contract annotations kcm reads, the cluster-api-operator InfrastructureProvider
with a fetchConfig, the ProviderInterface, the ClusterRoles aggregated to
Cluster API's and kcm's managers, and a credential resource template.

With --controller, write a Go provider around it (the chart goes to chart/):
a controller-runtime module implementing the Cluster API v1beta2 contract
(NAMECluster, NAMEMachine, NAMEMachineTemplate, NAMEClusterTemplate and their
reconcilers), the CRDs with their contract labels, deepcopy and the manager's
ClusterRole as controller-gen ` + scaffold.ControllerToolsVersion + ` generates them, the release's
infrastructure-components.yaml, clusterctl's metadata.yaml and a Makefile.
It builds as written (go build ./...) with controller-runtime ` + scaffold.ControllerRuntimeVersion + ` and the
Kubernetes ` + scaffold.KubernetesVersion + ` libraries, as kbook's example provider does; Cluster
API's Cluster and Machine are read at the v1beta2 contract's paths.

Either passes kbook provider validate as written. The directory must not
exist; nothing is written on error.`,
		Example: `  kbook provider init acme
  kbook provider init acme --group infrastructure.acme.io --api-version v1beta1 \
      --components-url https://github.com/acme/cluster-api-provider-acme/releases/v0.3.0/infrastructure-components.yaml --version v0.3.0
  kbook provider init acme --controller --module github.com/acme/cluster-api-provider-acme \
      --group infrastructure.acme.io --image registry.acme.io/capi/acme-controller
  cd cluster-api-provider-acme && make build validate`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return to{cmd}.created(scaffold.New(o))
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
	var (
		opts   provider.Options
		render provider.RenderOptions
		target string
	)
	cmd := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check a provider against the CAPI contract, clusterctl, kcm and a security policy",
		Long: `Check a Cluster API provider offline. Each PATH is a components YAML
(multi-document, as released), a folder of CRD YAML files, a ProviderTemplate
Helm chart (a directory or .tgz, rendered as kcm renders it) or a clusterctl
metadata.yaml; all are checked together.

The contract version of each CRD comes from its cluster.x-k8s.io/<contract>
label alone, as Cluster API reads it, and picks the field paths the rules
check (v1beta2 or v1beta1). Every finding has a rule ID, a severity, a
file:line, the YAML path of the field and a fix hint; see the provider rule
catalogue in the docs. Text output ends with the clusterctl variables the
components need.

Exit status: 0 no errors (warnings allowed), 1 errors found, 2 bad input.`,
		Example: `  kbook provider validate infrastructure-components.yaml metadata.yaml
  kbook provider validate ./chart infrastructure-components.yaml
  kbook provider validate config/crd/bases --target capi
  kbook provider validate components.yaml --registry registry.acme.io -o sarif > provider.sarif`,
		Args: cobra.MinimumNArgs(1),
	}
	checkCmd(cmd, provider.Registry, func(_ *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		res, err := provider.Check(args, target, opts, render)
		if err != nil {
			return nil, nil, err
		}
		return []*findings.Report{res.Report}, func(w io.Writer) { provider.WriteVariables(w, res.Variables) }, nil
	})
	fl := cmd.Flags()
	fl.StringVar(&target, "target", string(provider.TargetK0rdent), "what the provider must work with: k0rdent (CAPI contract and kcm) or capi (the contract alone)")
	fl.StringArrayVar(&opts.Registries, "registry", nil, "allow controller images from this `registry` (repeatable; default: not checked)")
	fl.StringArrayVar(&opts.Disable, "disable", nil, "do not report this `rule` ID (repeatable)")
	fl.StringVar(&render.Registry, "global-registry", "", "render charts with global.registry set to this `registry`, as kcm does with --global-registry")
	return cmd
}

func newProviderManifestCmd() *cobra.Command {
	var (
		o      provider.ManifestOptions
		crds   []string
		config string
	)
	cmd := &cobra.Command{
		Use:   "manifest CHART",
		Short: "Print the ProviderTemplate and the Management entry that enable a provider",
		Long: `Print the k0rdent ProviderTemplate that makes kcm pull the chart (a directory
or .tgz) from a HelmRepository in kcm-system, and the Management.spec.providers
entry that installs it. With --crds (k0rdent's CRDs), both are first checked
against the ProviderTemplate and Management schemas as the API server would.`,
		Example: `  kbook provider manifest ./cluster-api-provider-acme --repo acme-providers | kubectl apply -f -
  kbook provider manifest ./cluster-api-provider-acme --repo acme-providers --crds crds/k0rdent --config acme-values.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := provider.ManifestFiles(args[0], o, crds, config)
			if err != nil {
				return usageError(err)
			}
			data, err := m.YAML()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Repo, "repo", "", "`name` of the HelmRepository in kcm-system the chart is published in (required)")
	fl.StringVar(&o.Name, "name", "", "ProviderTemplate `name` (default CHART-VERSION with dots as dashes)")
	fl.StringVar(&o.Interval, "interval", "", "how often Flux checks the chart, a `duration` (default 10m0s)")
	fl.StringArrayVar(&crds, "crds", nil, "check the objects against k0rdent's CRDs in this `file or directory` (repeatable)")
	fl.StringVar(&config, "config", "", "values `file` for the Management entry's config")
	return cmd
}
