package main

import (
	"github.com/k0rdent/kbook/internal/log"
	"time"

	"github.com/k0rdent/kbook/internal/site"
	"github.com/k0rdent/kbook/internal/site/build"
	"github.com/spf13/cobra"
)

type buildFlags struct {
	out           string
	version       string
	title         string
	aliases       []string
	baseURL       string
	noRun         bool
	allowFailures bool
	reports       []string
	noSearch      bool
	allVersions   bool
	hugoTimeout   time.Duration
	run           runFlags
}

func newBuildCmd() *cobra.Command {
	var f buildFlags
	cmd := &cobra.Command{
		Use:  "build [DIR]",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBuild(cmd, args, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "public", "output `directory` holding every version of the site")
	fl.StringVar(&f.version, "version", site.NextVersion, "`name` of the version folder to build (next: the unreleased channel)")
	fl.StringVar(&f.title, "title", "", "switcher label of the version (default: its name)")
	fl.StringArrayVar(&f.aliases, "alias", nil, "alias `folder` redirecting to this version, such as latest (repeatable)")
	fl.StringVar(&f.baseURL, "base-url", "", "`URL` the site is published at (default: kbook.yaml's baseURL, else /)")
	fl.BoolVar(&f.noRun, "no-run", false, "execute nothing: show cached results only")
	fl.BoolVar(&f.allowFailures, "allow-failures", false, "exit 0 even when a runbook failed")
	fl.StringArrayVar(&f.reports, "report", nil, "take runbook results from this kbook run --json `file` instead of running (repeatable, merged)")
	fl.BoolVar(&f.noSearch, "no-search", false, "build without the Pagefind search index")
	fl.BoolVar(&f.allVersions, "all-versions", false, "build every version kbook.yaml lists, each from its git ref in a worktree; tagged versions already in --out are kept as they are")
	fl.DurationVar(&f.hugoTimeout, "hugo-timeout", site.DefaultHugoTimeout, "time limit of the Hugo build; a build still running then is stopped (exit 1)")
	f.run.registerRun(cmd)
	return cmd
}

func runBuild(cmd *cobra.Command, args []string, f *buildFlags) error {
	ro, err := f.run.options(cmd, nil)
	if err != nil {
		return usageError(err)
	}
	o := build.Options{OutDir: f.out, Version: f.version, Title: f.title, Aliases: f.aliases, VersionSet: cmd.Flags().Changed("version"),
		BaseURL: f.baseURL, NoRun: f.noRun, Reports: f.reports, AllowFailures: f.allowFailures, NoSearch: f.noSearch,
		AllVersions: f.allVersions, HugoTimeout: f.hugoTimeout, Run: ro, CRDsGiven: len(f.run.cluster.o.CRDs) > 0,
		Logger: log.To{W: cmd.ErrOrStderr()}, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}
	if len(args) == 1 {
		o.Dir = args[0]
	}
	// The build's work folders are recorded while they exist: the next
	// kbook removes them if this one is killed.
	procs, closeProcs := openProcs(log.To{W: cmd.ErrOrStderr()})
	defer closeProcs()
	o.Procs = procs
	return exit(cmd.Context(), build.Build(cmd.Context(), o))
}
