package main

import (
	"github.com/spf13/cobra"

	"github.com/k0rdent/kbook/internal/cluster/nodeimage"
)

func newClusterImageCmd() *cobra.Command {
	var (
		o      nodeimage.Options
		output string
	)
	cmd := &cobra.Command{
		Use:  "image",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.CacheDir, o.Logger = cacheRoot(), stderrLog
			img, err := nodeimage.Build(cmd.Context(), o)
			if err != nil {
				return exit(cmd.Context(), err)
			}
			return failure(nodeimage.Write(cmd.OutOrStdout(), output, img))
		},
	}
	cmd.Flags().BoolVar(&o.Rebuild, "rebuild", false, "build the image even if the cache has it")
	cmd.Flags().StringVar(&o.Mirror, "mirror", nodeimage.DefaultMirror, "Debian `mirror` the node's base is bootstrapped from")
	outputFlag(cmd.Flags(), &output, "text", "json", "yaml")
	return cmd
}

