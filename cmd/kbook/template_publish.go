package main

import (
	"errors"
	"fmt"

	"github.com/k0rdent/kbook/internal/cluster/kubeconfig"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/helmrepo"
	"github.com/k0rdent/kbook/internal/k0rdent/manifest"
	"github.com/spf13/cobra"
)

func newTemplatePublishCmd() *cobra.Command {
	var (
		o    helmrepo.PublishOptions
		kube kubeFlags
	)
	cmd := &cobra.Command{
		Use:   "publish CHART",
		Short: "Publish a chart to the Helm repository of a local k0rdent plane",
		Long: `Package the chart at CHART (directory or .tgz) and upload it to the Helm
repository that kbook serves beside a local k0rdent plane (kbook run --k0rdent,
kbook cluster up --k0rdent), then make sure a HelmRepository in the namespace
points at that repository, labelled k0rdent.mirantis.com/managed: "true" as
kcm requires. A ClusterTemplate from 'kbook template manifest CHART --repo
NAME' then installs it.

The repository is found through the cluster (the ConfigMap
kcm-system/kbook-helm-repository the plane writes), so a runbook needs
nothing but its kubeconfig. A chart version is immutable: publishing other
content under a version already there fails; bump the version instead.

Exit status: 0 published, 1 the cluster or repository failed, 2 bad input.`,
		Example: `  # In a runbook on kbook run --k0rdent v1.11.4
  kbook template publish ./acme-inmemory
  kbook template manifest ./acme-inmemory --repo kbook-local -n $NAMESPACE | kubectl apply -f -
  await clustertemplate/acme-inmemory-0-1-0 '{.status.valid}'=true`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Interval != "" {
				canon, err := manifest.CanonicalInterval(o.Interval)
				if err != nil {
					return usageError(fmt.Errorf("--interval: %w", err))
				}
				o.Interval = canon
			}
			ch, archive, err := helmrepo.LoadForPublish(args[0])
			if err != nil {
				return usageError(err)
			}
			kc, err := kubeconfig.Load(kube.kubeconfig, kube.context)
			if err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			if o.Namespace == "" {
				o.Namespace = kc.Namespace
			}
			res, err := helmrepo.Publish(cmd.Context(), kc.Config, archive, o)
			if errors.Is(err, helmrepo.ErrExists) {
				return usageError(err)
			}
			if err != nil {
				return &exitError{findings.ExitErrors, err}
			}
			verb := "exists"
			if res.Created {
				verb = "created"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "published %s %s to %s (HelmRepository %s/%s %s)\n", ch.Name(), ch.Metadata.Version, res.URL, o.Namespace, res.Repo, verb)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.Namespace, "namespace", "n", "", "`namespace` of the HelmRepository (default: the kubeconfig context's)")
	fl.StringVar(&o.Repo, "repo", helmrepo.DefaultRepoName, "`name` of the HelmRepository")
	fl.StringVar(&o.URL, "repo-url", "", "`URL` of the kbook repository (default: the one serving the cluster)")
	fl.StringVar(&o.Interval, "interval", "", "how often Flux checks the repository, a `duration` (default 10m0s)")
	kube.register(fl)
	return cmd
}
