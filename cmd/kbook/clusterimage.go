package main

import (
	"github.com/spf13/cobra"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/nodeimage"
)

func newClusterImageCmd() *cobra.Command {
	var (
		o      nodeimage.Options
		output string
		lb     bool
	)
	cmd := &cobra.Command{
		Use:  "image",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.CacheDir, o.Logger = cacheRoot(), stderrLog
			if lb {
				img, err := nodeimage.BuildLoadBalancer(cmd.Context(), o)
				if err != nil {
					return exit(cmd.Context(), err)
				}
				return failure(nodeimage.Write(cmd.OutOrStdout(), output, img))
			}
			img, err := nodeimage.Build(cmd.Context(), o)
			if err != nil {
				return exit(cmd.Context(), err)
			}
			return failure(nodeimage.Write(cmd.OutOrStdout(), output, img))
		},
	}
	cmd.Flags().BoolVar(&o.Rebuild, "rebuild", false, "build the image even if the cache has it")
	cmd.Flags().StringVar(&o.Mirror, "mirror", nodeimage.DefaultMirror, "Debian `mirror` the node's base is bootstrapped from")
	cmd.Flags().BoolVar(&lb, "load-balancer", false, "the image of the load balancer Cluster API's Docker provider puts before a control plane (haproxy from Debian's package, as kindest/haproxy) instead of the node image")
	outputFlag(cmd.Flags(), &output, "text", "json", "yaml")
	return cmd
}

func newClusterLoadImageCmd() *cobra.Command {
	var o cluster.LoadImageOptions
	cmd := &cobra.Command{
		Use:  "load-image [IMAGE|ARCHIVE]...",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Images, o.Logger = args, stderrLog
			_, err := cluster.LoadImages(cmd.Context(), o)
			return exit(cmd.Context(), err)
		},
	}
	cmd.Flags().StringVar(&o.Cluster, "name", "", "kind cluster `name` (default: $"+cluster.EnvKindCluster+", which kbook run sets for runbooks on kind, else "+cluster.DefaultKindName+")")
	cmd.Flags().StringVar(&o.GoPackage, "go", "", "build this Go main `package` (a folder, a .go file or an import path) static into an image holding only the program")
	cmd.Flags().StringVar(&o.Tag, "tag", "", "with --go: the image `reference` to give it (e.g. kbook.local/hello:v1)")
	return cmd
}
