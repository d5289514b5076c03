package main

import (
	"github.com/k0rdent/kbook/internal/helmrepo"
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
			res, err := helmrepo.PublishChart(cmd.Context(), args[0], kube.connect, o)
			return to{cmd}.line(res, err)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.Namespace, "namespace", "n", "", "`namespace` of the HelmRepository (default: the kubeconfig context's)")
	fl.StringVar(&o.Repo, "repo", helmrepo.DefaultRepoName, "`name` of the HelmRepository")
	fl.StringVar(&o.URL, "repo-url", "", "`URL` of the kbook repository (default: the one serving the cluster)")
	fl.StringVar(&o.Interval, "interval", "", "how often Flux checks the repository, a `duration` (default 10m0s)")
	kubeconfigFlags(fl, &kube.kubeconfig, &kube.context)
	return cmd
}
