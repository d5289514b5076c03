package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/k0rdent/kbook/internal/plural"
	"io"
	"os"
	"strings"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/provider"
	"github.com/k0rdent/kbook/internal/provider/conformance"
	"github.com/k0rdent/kbook/internal/provider/scaffold"
	"github.com/k0rdent/kbook/internal/schema"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
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
			dir, files, err := scaffold.Init(o)
			if err != nil {
				return usageError(err)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "created %s/\n", dir)
			for _, f := range files {
				fmt.Fprintf(out, "  %s\n", f)
			}
			if o.Controller {
				fmt.Fprintf(out, "next: cd %s && make build && kbook provider validate infrastructure-components.yaml metadata.yaml chart\n", dir)
			} else {
				fmt.Fprintf(out, "next: kbook provider validate %s infrastructure-components.yaml metadata.yaml\n", dir)
			}
			return nil
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
		output string
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
		RunE: func(cmd *cobra.Command, args []string) error {
			switch provider.Target(target) {
			case provider.TargetK0rdent, provider.TargetCAPI:
				opts.Target = provider.Target(target)
			default:
				return usageError(fmt.Errorf("--target %q: want k0rdent or capi", target))
			}
			if err := provider.Registry.CheckDisable(opts.Disable); err != nil {
				return usageError(err)
			}
			set, err := provider.Load(args, render)
			if err != nil {
				return usageError(err)
			}
			res := provider.Validate(set, opts)
			if err := findings.Write(cmd.OutOrStdout(), output, provider.Registry, res.Report); err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			if output == "text" {
				writeVariables(cmd.OutOrStdout(), res.Variables)
			}
			if code := provider.Registry.ExitCode(res.Report); code != findings.ExitOK {
				return &exitError{code, nil}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&target, "target", string(provider.TargetK0rdent), "what the provider must work with: k0rdent (CAPI contract and kcm) or capi (the contract alone)")
	fl.StringArrayVar(&opts.Registries, "registry", nil, "allow controller images from this `registry` (repeatable; default: not checked)")
	fl.StringArrayVar(&opts.Disable, "disable", nil, "do not report this `rule` ID (repeatable)")
	fl.StringVar(&render.Registry, "global-registry", "", "render charts with global.registry set to this `registry`, as kcm does with --global-registry")
	outputFlag(fl, &output, "text", "json", "sarif")
	return cmd
}

func writeVariables(w io.Writer, vars []provider.Variable) {
	if len(vars) == 0 {
		return
	}
	var req, opt []string
	for _, v := range vars {
		if v.HasDefault {
			opt = append(opt, fmt.Sprintf("%s (default %q)", v.Name, v.Default))
		} else {
			req = append(req, v.Name)
		}
	}
	if len(req) > 0 {
		fmt.Fprintf(w, "clusterctl variables to set: %s\n", strings.Join(req, ", "))
	}
	if len(opt) > 0 {
		fmt.Fprintf(w, "clusterctl variables with defaults: %s\n", strings.Join(opt, ", "))
	}
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
			if len(crds) > 0 {
				v, err := schema.FromFiles(crds...)
				if err != nil {
					return usageError(err)
				}
				o.Schemas = v
			}
			if config != "" {
				data, err := os.ReadFile(config)
				if err != nil {
					return usageError(err)
				}
				if err := yaml.Unmarshal(data, &o.Config); err != nil {
					return usageError(fmt.Errorf("%s: %w", config, err))
				}
			}
			m, err := provider.BuildManifest(args[0], o)
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

func newProviderConformanceCmd() *cobra.Command {
	var (
		o          conformance.Options
		co         cluster.Options
		kube       kubeFlags
		samples    []string
		output     string
		controller bool
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
			set, err := provider.Load(args, provider.RenderOptions{})
			if err != nil {
				return usageError(err)
			}
			o.Samples = map[string]*unstructured.Unstructured{}
			for _, s := range samples {
				data, err := os.ReadFile(s)
				if err != nil {
					return usageError(err)
				}
				var obj map[string]any
				if err := yaml.Unmarshal(data, &obj); err != nil || obj["kind"] == nil {
					return usageError(fmt.Errorf("%s: not a Kubernetes object: %v", s, err))
				}
				u := &unstructured.Unstructured{Object: obj}
				o.Samples[u.GetKind()] = u
			}
			o.Controller = controller
			co.Backend, co.Kubeconfig, co.Context = cluster.Local, kube.kubeconfig, kube.context
			if kube.set() {
				co.Backend = cluster.Kubeconfig
			}
			co.Logger = stderrLogger{}
			// The local API server dies with kbook, and a kill -9 is
			// reaped by the next kbook (package proc).
			reg, closeProcs := openProcs(stderrLogger{})
			defer closeProcs()
			co.Procs = reg
			c, err := cluster.Up(cmd.Context(), co)
			if err != nil {
				return usageError(err)
			}
			// Stop even after Ctrl-C cancelled the command's context.
			defer func() { _ = c.Stop(context.WithoutCancel(cmd.Context())) }()
			o.Config = c.RESTConfig()
			o.Logger = stderrLogger{}
			res, err := conformance.Run(cmd.Context(), set, o)
			if cmd.Context().Err() != nil {
				return &exitError{findings.ExitInterrupted, fmt.Errorf("interrupted: the objects kbook created were deleted")}
			}
			if err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			out := cmd.OutOrStdout()
			if output == "json" {
				data, _ := json.MarshalIndent(res, "", "  ")
				fmt.Fprintln(out, string(data))
			} else {
				for _, ch := range res.Checks {
					line := fmt.Sprintf("%-4s %s", ch.Status, ch.Name)
					if ch.Message != "" {
						line += ": " + ch.Message
					}
					fmt.Fprintln(out, line)
				}
				for _, n := range res.Notes {
					fmt.Fprintln(out, "note: "+n)
				}
				fmt.Fprintf(out, "%s, %d failed (on %s)\n", plural.Count(len(res.Checks), "check"), res.Failed(), c.Backend())
			}
			if res.Failed() > 0 {
				return &exitError{findings.ExitErrors, nil}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	kube.register(fl)
	fl.BoolVar(&controller, "controller", false, "the provider's controller runs against the cluster: wait for it to set providerID and readiness")
	fl.StringArrayVar(&samples, "sample", nil, "create this object `file` instead of a minimal one for its kind (repeatable)")
	fl.DurationVar(&o.Timeout, "timeout", 0, "how long to wait for the controller (default 2m)")
	fl.StringVarP(&o.Namespace, "namespace", "n", "", "create the objects in this existing `namespace` (default: a new kbook-conformance-* one, deleted at the end)")
	fl.BoolVar(&o.Keep, "keep", false, "leave the namespace, objects and roles kbook created")
	outputFlag(fl, &output, "text", "json")
	return cmd
}

// providerContractCheck loads the providers of template validate
// --provider and returns the check it adds to each template's report
// (KCM009), or a no-op without providers.
func providerContractCheck(paths []string) (func(chart string, r *findings.Report) error, error) {
	if len(paths) == 0 {
		return func(string, *findings.Report) error { return nil }, nil
	}
	set, err := provider.Load(paths, provider.RenderOptions{})
	if err != nil {
		return nil, err
	}
	offer, err := set.Offers()
	if err != nil {
		return nil, err
	}
	return func(chart string, r *findings.Report) error {
		fs, err := offer.CheckTemplate(chart)
		if err != nil {
			return err
		}
		r.Findings = append(r.Findings, fs...)
		findings.Sort(r.Findings)
		return nil
	}, nil
}
