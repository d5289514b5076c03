package main

import (
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/k0rdent/kbook/internal/sitebuild"
	"github.com/spf13/cobra"
)

func newBuildCmd() *cobra.Command {
	var o sitebuild.Options
	f := runFlags{o: &o.Run}
	cmd := &cobra.Command{
		Use:  "build [DIR]",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.options(cmd, nil); err != nil {
				return usageError(err)
			}
			o.Dir, o.VersionSet, o.CRDsGiven = first(args), cmd.Flags().Changed("version"), len(f.cluster.Options.CRDs) > 0
			o.Logger, o.IOStreams, o.OpenProcs = log.To{W: cmd.ErrOrStderr()}, streams(cmd), openProcs
			return exit(cmd.Context(), sitebuild.Build(cmd.Context(), o))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.OutDir, "out", "public", "output `directory` holding every version of the site")
	fl.StringVar(&o.Version, "version", site.NextVersion, "`name` of the version folder to build (next: the unreleased channel)")
	fl.StringVar(&o.Title, "title", "", "switcher label of the version (default: its name)")
	fl.StringArrayVar(&o.Aliases, "alias", nil, "alias `folder` redirecting to this version, such as latest (repeatable)")
	fl.StringVar(&o.BaseURL, "base-url", "", "`URL` the site is published at (default: kbook.yaml's baseURL, else /)")
	fl.BoolVar(&o.NoRun, "no-run", false, "execute nothing: show cached results only")
	fl.BoolVar(&o.AllowFailures, "allow-failures", false, "exit 0 even when a runbook failed")
	fl.StringArrayVar(&o.Reports, "report", nil, "take runbook results from this kbook run --json `file` instead of running (repeatable, merged)")
	fl.BoolVar(&o.NoSearch, "no-search", false, "build without the Pagefind search index")
	fl.Var(&o.SiteTools, "site-tools", o.SiteTools.Usage())
	fl.BoolVar(&o.AllVersions, "all-versions", false, "build every version kbook.yaml lists, each from its git ref in a worktree; tagged versions already in --out are kept as they are")
	fl.DurationVar(&o.HugoTimeout, "hugo-timeout", site.DefaultHugoTimeout, "time limit of the Hugo build; a build still running then is stopped (exit 1)")
	f.register(fl)
	return cmd
}
