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
		Use:  "publish CHART",
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
