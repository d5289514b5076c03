package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/policy"
	"github.com/k0rdent/kbook/internal/provider"
	"github.com/k0rdent/kbook/internal/schema"
	"github.com/k0rdent/kbook/internal/template"
	"github.com/k0rdent/kbook/internal/template/scaffold"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// addTemplateCommands adds the template commands built on the validator.
func addTemplateCommands(cmd *cobra.Command) {
	cmd.AddCommand(newTemplateValidateCmd(), newTemplateRenderCmd())
}

func newTemplateValidateCmd() *cobra.Command {
	var (
		opts      template.Options
		depUpdate bool
		crds      []string
		policies  []string
		output    string
		kube      kubeFlags
		providers []string
	)
	cmd := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check ClusterTemplate charts before installing them",
		Long: `Check ClusterTemplate charts (directories or .tgz) offline: that they load with
Helm, follow the rules kcm applies (provider and contract annotations, the
Kubernetes version), that values and configs match values.schema.json, that
they render as kcm would render them into one CAPI Cluster whose references
resolve, that the objects match the CRD schemas and CEL rules (--crds or
--kubeconfig), the security rules, and your organisation's policies (--policy).

Every finding has a rule ID, a severity and a file:line or values path; see
the rule catalogue in the docs. With several charts, -o json prints a list.

ProviderTemplate charts are recognised and get only the Chart rules (see
kbook provider validate).

Exit status: 0 no errors (warnings and infos allowed), 1 errors found, 2 bad
input: a missing path, a chart Helm cannot load, a --config that does not
parse, an unknown rule in --disable.`,
		Example: `  kbook template validate ./acme-docker
  kbook template validate ./acme-docker --crds crds/capi --policy acme-policy.yaml
  kbook template validate ./acme-docker --config clusterdeployment.yaml
  kbook template validate charts/* -o sarif > kbook.sarif
  kbook template validate ./acme-inventory --provider ./cluster-api-provider-inventory --provider infrastructure-components.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			switch {
			case len(crds) > 0 && kube.set():
				return usageError(fmt.Errorf("give --crds or --kubeconfig, not both"))
			case len(crds) > 0:
				if opts.Schemas, err = schema.FromFiles(crds...); err != nil {
					return usageError(err)
				}
			case kube.set():
				c, err := cluster.Up(cmd.Context(), cluster.Options{Backend: cluster.Kubeconfig, Kubeconfig: kube.kubeconfig, Context: kube.context})
				if err != nil {
					return usageError(err)
				}
				if opts.Schemas, err = schema.FromCluster(cmd.Context(), c.RESTConfig()); err != nil {
					return usageError(err)
				}
			}
			var policyRules []string
			for _, p := range policies {
				pol, err := policy.Load(p)
				if err != nil {
					return usageError(err)
				}
				opts.Policies = append(opts.Policies, pol)
				for _, r := range pol.Rules {
					policyRules = append(policyRules, r.ID)
				}
			}
			if err := template.Registry.CheckDisable(opts.Disable, policyRules...); err != nil {
				return usageError(err)
			}
			checkProvider, err := provider.ContractCheck(providers)
			if err != nil {
				return usageError(err)
			}
			var results []*findings.Report
			for _, a := range args {
				if depUpdate {
					if err := scaffold.DependencyUpdate(a, cmd.ErrOrStderr()); err != nil {
						return usageError(err)
					}
				}
				r, err := template.Validate(a, opts)
				if err == nil {
					err = checkProvider(a, r)
				}
				if err != nil {
					return usageError(err)
				}
				results = append(results, r)
			}
			if err := findings.Write(cmd.OutOrStdout(), output, template.Registry, results...); err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			if code := template.Registry.ExitCode(results...); code != findings.ExitOK {
				return &exitError{code, nil}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Config, "config", "", "also validate and render this `file`: a ClusterDeployment (its spec.config) or a values file")
	fl.StringArrayVar(&crds, "crds", nil, "check objects against the CRDs in this `file or directory` (repeatable)")
	kube.register(fl)
	fl.StringArrayVar(&providers, "provider", nil, "check the contracts the template pins against this provider: a ProviderTemplate chart, components or CRDs (repeatable; see kbook provider validate)")
	fl.StringArrayVar(&policies, "policy", nil, "check the organisation policy in this `file` (repeatable)")
	fl.StringArrayVar(&opts.Registries, "registry", nil, "allow images from this `registry` (repeatable; default: global.registry)")
	fl.StringArrayVar(&opts.Disable, "disable", nil, "do not report this `rule` ID (repeatable)")
	fl.StringVar(&opts.ReleaseName, "release-name", "", "ClusterDeployment `name` to render with (default "+template.DefaultReleaseName+")")
	fl.StringVarP(&opts.Namespace, "namespace", "n", "", "ClusterDeployment `namespace` to render with (default "+template.DefaultNamespace+")")
	outputFlag(fl, &output, "text", "json", "sarif")
	fl.BoolVar(&depUpdate, "dependency-update", false, "run helm dependency update on each chart first (for --extend wrappers)")
	return cmd
}

func newTemplateRenderCmd() *cobra.Command {
	var (
		opts   template.RenderOptions
		output string
	)
	cmd := &cobra.Command{
		Use:   "render PATH",
		Short: "Print the objects a ClusterTemplate chart renders, as kcm would",
		Long: `Render the chart at PATH (directory or .tgz) the way kcm installs it for a
ClusterDeployment: release name and namespace of the deployment, the values
kcm injects (clusterIdentity, global, clusterLabels), and the deployment's
spec.config (--config: a ClusterDeployment or a values file).

Exit status: 0 rendered, 1 the chart does not render (or its metadata is
invalid), 2 bad input (a missing or unloadable chart, a config that does
not parse), as template validate for the same chart.`,
		Example: `  kbook template render ./acme-docker
  kbook template render ./acme-docker --config ci/ha.yaml --release-name prod-1 -n team-a`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := os.Stat(args[0]); err != nil {
				return usageError(fmt.Errorf("chart %s: %w", args[0], errors.Unwrap(err)))
			}
			objs, err := template.Render(args[0], opts)
			if err != nil {
				return failure(err)
			}
			out := cmd.OutOrStdout()
			if output == "json" {
				var list []any
				for _, o := range objs {
					list = append(list, o.Unstructured.Object)
				}
				data, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": list}, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(out, string(data))
				return nil
			}
			for i, o := range objs {
				data, err := yaml.Marshal(o.Unstructured.Object)
				if err != nil {
					return err
				}
				if i > 0 {
					fmt.Fprintln(out, "---")
				}
				fmt.Fprintf(out, "# Source: %s\n%s", o.Template, data)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Config, "config", "", "the ClusterDeployment or values `file` to render with")
	fl.StringVar(&opts.ReleaseName, "release-name", "", "ClusterDeployment `name` (default "+template.DefaultReleaseName+")")
	fl.StringVarP(&opts.Namespace, "namespace", "n", "", "ClusterDeployment `namespace` (default "+template.DefaultNamespace+")")
	outputFlag(fl, &output, "yaml", "json")
	return cmd
}
