package main

import (
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/serve"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/spf13/cobra"
)

func newServeCmd() *cobra.Command {
	var o serve.Options
	f := runFlags{o: &o.RunOptions}
	cmd := &cobra.Command{
		Use:  "serve [DIR]",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.options(cmd, nil); err != nil {
				return usageError(err)
			}
			o.Dir, o.CRDsGiven, o.OpenProcs = first(args), len(f.cluster.Options.CRDs) > 0, openProcs
			o.Logger, o.IOStreams = log.To{W: cmd.ErrOrStderr()}, streams(cmd)
			return exit(cmd.Context(), serve.Serve(cmd.Context(), o))
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&o.Port, "port", 1313, "TCP `port` to serve on")
	fl.StringVar(&o.Bind, "bind", "127.0.0.1", "`address` to listen on")
	fl.BoolVar(&o.Run, "run", false, "run the runbooks at start and each runbook again when it changes")
	fl.StringVar(&o.Version, "version", site.NextVersion, "version `name` the served site shows")
	fl.DurationVar(&o.HugoTimeout, "hugo-timeout", site.DefaultHugoTimeout, "time limit of each Hugo build; a build still running then is stopped and shown as failed")
	fl.Var(&o.SiteTools, "site-tools", o.SiteTools.Usage())
	f.register(fl)
	return cmd
}
