package main

import (
	"io"
	"slices"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/assetsfrom"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cli"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/overlay"
	"github.com/k0rdent/kbook/internal/run"
)

// The flag sets commands share, each defined once here with one help
// text, bound to the options of the library each command calls.

// outputFlag registers -o/--output, the one way every command takes an
// output format: the value must be one of formats (the first is the
// default), checked as the flag is parsed (findings.Output), so a bad -o
// exits 2 before anything runs.
func outputFlag(fl *pflag.FlagSet, p *string, formats ...string) {
	o := findings.NewOutput(p, formats...)
	fl.VarP(o, "output", "o", o.Usage())
}

// kubeconfigFlags registers --kubeconfig and --context of an existing
// cluster, as kubectl takes them (package cluster/kubeconfig loads them).
// overlayFlag is --overlay, as kbook run, build, serve and check take it.
func overlayFlag(fl *pflag.FlagSet, p *[]string) {
	fl.StringArrayVar(p, "overlay", nil, "apply the overlay `FILE` to the pages' shell blocks (besides kbook.yaml's run.overlay and the docs root's "+overlay.File+"; repeatable)")
}

func kubeconfigFlags(fl *pflag.FlagSet, file, context *string) {
	fl.StringVar(file, "kubeconfig", "", "kubeconfig `file` of an existing cluster (default: $KUBECONFIG, else ~/.kube/config)")
	fl.StringVar(context, "context", "", "kubeconfig `context` to use (default: its current context)")
}

// liveFlags registers the flags of commands that read a management
// cluster: its kubeconfig and context, and the ClusterDeployment's
// namespace.
func liveFlags(fl *pflag.FlagSet, file, context, namespace *string) {
	kubeconfigFlags(fl, file, context)
	fl.StringVarP(namespace, "namespace", "n", "", "`namespace` of the ClusterDeployment (default: the context's)")
}

// chartsFlag registers --charts of the live upgrade commands.
func chartsFlag(fl *pflag.FlagSet, p *[]string) {
	fl.StringArrayVar(p, "charts", nil, "look for the templates' charts in this `folder` (chart folders or .tgz; repeatable); else they are pulled from the templates' HelmRepository")
}

// clusterFlags registers the flags that select a backend; kbook run,
// build, serve and cluster up share them.
func clusterFlags(fl *pflag.FlagSet, backend *string, o *cluster.Options, forRun bool) {
	def, usage, backends := cluster.Local, "cluster backend: local, kind or kubeconfig", cluster.Backends
	if forRun {
		backends = slices.Concat([]string{cluster.Auto}, backends, []string{run.None})
		def, usage = cluster.Auto, "cluster backend: auto, local, kind, kubeconfig or none (auto: kubeconfig if --kubeconfig or --context is given, else local, even with $KUBECONFIG set; started only if a runbook needs a cluster)"
	}
	fl.StringVar(backend, "cluster", def, usage)
	cli.Choose(fl, "cluster", backends...)
	kubeconfigFlags(fl, &o.Kubeconfig, &o.Context)
	if forRun { // $KUBECONFIG is the kubeconfig backend's file; it does not choose that backend
		fl.Lookup("kubeconfig").Usage = "kubeconfig `file` of an existing cluster to run on: given, --cluster auto means kubeconfig (that backend's default file: $KUBECONFIG, else ~/.kube/config; $KUBECONFIG alone does not choose it)"
	}
	fl.StringArrayVar(&o.CRDs, "crds", nil, "install the CustomResourceDefinitions in this `file or directory` (repeatable)")
	fl.StringVar(&o.KindImage, "kind-image", "auto", "kind backend: the node `image`: auto (kind's released image where the engine has it or its registry answers, else kbook's own, built here), build (kbook's own: kbook cluster image) or an image reference")
	fl.IntVar(&o.KindWorkers, "kind-workers", 0, "kind backend: worker nodes beside the control plane")
	fl.BoolVar(&o.KeepCluster, "keep-cluster", false, "keep a kind cluster kbook created (kind backend)")
	fl.StringVar(&o.K0rdent, "k0rdent", "", "run the real k0rdent management plane of this `version`: on the local backend kcm, Flux and Cluster API controllers as local processes; with --cluster kind, kcm installed into the cluster from its own chart (built once; known: "+strings.Join(controllers.K0rdentVersions(), ", ")+")")
	fl.BoolVar(&o.K0rdentAPIOnly, "k0rdent-api-only", false, "with --k0rdent: serve that release's k0rdent, Flux, Sveltos and Cluster API APIs (CRDs) without starting controllers")
	fl.BoolVar(&o.NoSnapshot, "no-snapshot", false, "local backend: install the CRDs on an empty server instead of starting from the etcd snapshot kbook saved the first time the same CRDs were installed")
	fl.Var(&o.AssetsFrom, "assets-from", "local backend: where kube-apiserver and etcd (unless KUBEBUILDER_ASSETS names them) and the --k0rdent controllers come from: download (setup-envtest's released archive, sha512-checked; the controllers' released images, digest-checked), build (from pinned Go modules, minutes, once) or auto (what the cache has, else download, else build)")
	cli.Choose(fl, "kind-image", cluster.KindImageAuto, cluster.KindImageBuild)
	cli.Choose(fl, "k0rdent", controllers.K0rdentVersions()...)
	cli.Choose(fl, "assets-from", assetsfrom.Names...)
}

// changed names the flags given on cmd's command line.
func changed(cmd *cobra.Command) map[string]bool {
	m := map[string]bool{}
	cmd.Flags().Visit(func(f *pflag.Flag) { m[f.Name] = true })
	return m
}

// register registers the flags of a runbook run that run, build and
// serve share: parallelism, time limits, the cache, the environment and
// the cluster.
func (f *runFlags) register(fl *pflag.FlagSet) {
	fl.IntVarP(&f.o.Parallel, "parallel", "p", 0, "number of runbooks to run at once (default: the number of CPUs)")
	fl.DurationVar(&f.o.Timeout, "timeout", 10*time.Minute, "time limit per runbook, unless its front matter sets timeout")
	fl.StringVar(&f.o.CacheDir, "cache-dir", "", "cache `directory` (default: $"+cache.EnvDir+", else kbook/ in the user cache directory)")
	fl.StringArrayVar(&f.o.Env, "env", nil, "set `KEY=VALUE` in every script's environment; KEY alone passes kbook's own value of KEY (scripts inherit no other host variable; repeatable)")
	fl.BoolVar(&f.o.Offline, "offline", false, "the run has no internet: a page's shell block that downloads (curl, wget, git clone, kubectl -f URL, an install) is skipped, saying so")
	overlayFlag(fl, &f.o.Overlays)
	f.o.Progress = "auto"
	clusterFlags(fl, &f.cluster.Backend, &f.cluster.Options, true)
}

// checkFunc is the library call of a command that reports findings; tail,
// if not nil, follows text output (provider validate's clusterctl
// variables).
type checkFunc func(cmd *cobra.Command, args []string) (reps []*findings.Report, tail func(io.Writer), err error)

// checkCmd makes c a command that reports findings (template, provider
// and chain validate, check, upgrade check) the one way: -o text, json or
// sarif written by findings.Write, and the registry's exit code (0 no
// errors, 1 errors found, 2 bad input; 130 interrupted).
func checkCmd(c *cobra.Command, reg *findings.Registry, check checkFunc) *cobra.Command {
	var output string
	outputFlag(c.Flags(), &output, findings.Formats...)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		reps, tail, err := check(cmd, args)
		if err != nil {
			return exit(cmd.Context(), err)
		}
		if err := findings.Write(cmd.OutOrStdout(), output, reg, reps...); err != nil {
			return failure(err)
		}
		if tail != nil && output == "text" {
			tail(cmd.OutOrStdout())
		}
		return code(reg.ExitCode(reps...))
	}
	return c
}

// one is a check's single report.
func one(rep *findings.Report, err error) ([]*findings.Report, func(io.Writer), error) {
	return []*findings.Report{rep}, nil, err
}
