package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/k0rdent/kbook/internal/chain"
	"github.com/k0rdent/kbook/internal/findings"
)

func newChainCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "chain",
		Short: "Check the template chains that define k0rdent upgrade paths",
		Long: `ClusterTemplateChains and ServiceTemplateChains list, for each template, the
templates a deployment may upgrade to; kcm copies them into a
ClusterDeployment's status.availableUpgrades.`,
	}
	cmd.AddCommand(newChainValidateCmd())
	return cmd
}

func newChainValidateCmd() *cobra.Command {
	var opts chain.Options
	cmd := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check template chains as kcm does, and for cycles, downgrades and skipped Kubernetes versions",
		Long: `Check ClusterTemplateChains and ServiceTemplateChains offline.

PATHs are YAML files with chains, ClusterTemplates (spec.helm.chartSpec.version,
spec.k8sVersion) and ServiceTemplates, chart folders or archives (the
template kcm names <chart>-<version with dots as dashes>, with the Kubernetes
version of its defaults), or folders of those.

kbook says what kcm does with each chain - its webhook denies an upgrade
target that is not among the supported templates, versions set on some
upgrades only, and supported templates that do not exist - in kcm's own
words, and what it then offers each template as status.availableUpgrades.
Then it checks what kcm does not: upgrade cycles, downgrades, Kubernetes
minor versions skipped in one hop, chart changes (Flux reinstalls),
versions that do not match the template, and templates nothing upgrades to.

Exit status: 0 no errors (warnings allowed), 1 errors found, 2 bad input.`,
		Example: `  kbook chain validate aws-chain.yaml
  kbook chain validate aws-chain.yaml ./charts/          # with the templates' charts
  kbook chain validate chains/ templates/ -o json`,
		Args: cobra.MinimumNArgs(1),
	}
	checkCmd(cmd, chain.Registry, func(_ *cobra.Command, args []string) ([]*findings.Report, func(io.Writer), error) {
		return one(chain.Check(opts, args...))
	})
	cmd.Flags().StringVar(&opts.SystemNamespace, "system-namespace", "kcm-system", "kcm's system `namespace` (its webhook checks chains there even when labelled managed)")
	return cmd
}
