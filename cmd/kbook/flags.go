package main

import (
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/cluster/kubeconfig"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/upgrade"
)

// The flag sets commands share, each defined once here with one help text.

// outputFlag registers -o/--output, the one way every command takes an
// output format: the value must be one of formats (the first is the
// default), checked as the flag is parsed, so a bad -o exits 2 before
// anything runs.
func outputFlag(fl *pflag.FlagSet, p *string, formats ...string) {
	*p = formats[0]
	fl.VarP(&outputValue{p, formats}, "output", "o", "output format: "+findings.OneOf(formats))
}

type outputValue struct {
	p       *string
	formats []string
}

func (v *outputValue) String() string { return *v.p }
func (v *outputValue) Type() string   { return "string" }

func (v *outputValue) Set(s string) error {
	if !slices.Contains(v.formats, s) {
		// pflag says: invalid argument "xml" for "-o, --output" flag: ...
		return errors.New("want " + findings.OneOf(v.formats))
	}
	*v.p = s
	return nil
}

// kubeFlags are --kubeconfig and --context of an existing cluster, as
// kubectl takes them (package cluster/kubeconfig loads them).
type kubeFlags struct{ kubeconfig, context string }

const (
	kubeconfigUsage = "kubeconfig `file` of an existing cluster (default: $KUBECONFIG, else ~/.kube/config)"
	contextUsage    = "kubeconfig `context` to use (default: its current context)"
)

// connect loads the kubeconfig and context the flags name.
func (k *kubeFlags) connect() (*rest.Config, string, error) {
	kc, err := kubeconfig.Load(k.kubeconfig, k.context)
	if err != nil {
		return nil, "", err
	}
	return kc.Config, kc.Namespace, nil
}

func (k *kubeFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&k.kubeconfig, "kubeconfig", "", kubeconfigUsage)
	fl.StringVar(&k.context, "context", "", contextUsage)
}

// liveFlags are the flags of commands that read a management cluster.
type liveFlags struct {
	kubeFlags
	namespace string
	charts    []string
}

func (l *liveFlags) add(cmd *cobra.Command) {
	l.register(cmd.Flags())
	cmd.Flags().StringVarP(&l.namespace, "namespace", "n", "", "`namespace` of the ClusterDeployment (default: the context's)")
}

func (l *liveFlags) addCharts(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&l.charts, "charts", nil, "look for the templates' charts in this `folder` (chart folders or .tgz; repeatable); else they are pulled from the templates' HelmRepository")
}

// request is the upgrade args and these flags name.
func (l *liveFlags) request(args []string, to string, allowK8sChange bool) upgrade.Request {
	r := upgrade.Request{To: to, Namespace: l.namespace, Charts: l.charts, AllowK8sChange: allowK8sChange,
		Kubeconfig: l.kubeconfig, Context: l.context}
	if len(args) > 0 {
		r.Deployment = args[0]
	}
	return r
}

// clusterFlags select a backend; kbook run, build, serve and cluster up
// share them.
type clusterFlags struct {
	backend string
	o       cluster.Options
}

func (f *clusterFlags) register(cmd *cobra.Command, forRun bool) {
	fl := cmd.Flags()
	def, usage := cluster.Local, "cluster backend: local, kind or kubeconfig"
	if forRun {
		def, usage = cluster.Auto, "cluster backend: auto, local, kind, kubeconfig or none (auto: kubeconfig if --kubeconfig/--context is given, else local; started only if a runbook needs a cluster)"
	}
	fl.StringVar(&f.backend, "cluster", def, usage)
	fl.StringVar(&f.o.Kubeconfig, "kubeconfig", "", kubeconfigUsage)
	fl.StringVar(&f.o.Context, "context", "", contextUsage)
	fl.StringArrayVar(&f.o.CRDs, "crds", nil, "install the CustomResourceDefinitions in this `file or directory` (repeatable)")
	fl.StringVar(&f.o.KindImage, "kind-image", "", "kind node `image` (kind backend; default: kind's)")
	fl.BoolVar(&f.o.KeepCluster, "keep-cluster", false, "keep a kind cluster kbook created (kind backend)")
	fl.StringVar(&f.o.K0rdent, "k0rdent", "", "run the real k0rdent management plane of this `version` on the local backend: kcm, Flux and Cluster API controllers as local processes (built once; known: "+strings.Join(controllers.K0rdentVersions(), ", ")+")")
	fl.BoolVar(&f.o.K0rdentAPIOnly, "k0rdent-api-only", false, "with --k0rdent: serve that release's k0rdent, Flux, Sveltos and Cluster API APIs (CRDs) without starting controllers")
	fl.BoolVar(&f.o.NoSnapshot, "no-snapshot", false, "local backend: install the CRDs on an empty server instead of starting from the etcd snapshot kbook saved the first time the same CRDs were installed")
	fl.StringVar(&f.o.AssetsFrom, "assets-from", string(binaries.Auto), "local backend: where kube-apiserver and etcd (unless KUBEBUILDER_ASSETS names them) and the --k0rdent controllers come from: download (setup-envtest's released archive, sha512-checked; the controllers' released images, digest-checked), build (from pinned Go modules, minutes, once) or auto (what the cache has, else download, else build)")
}

// changed names the flags given on cmd's command line.
func changed(cmd *cobra.Command) map[string]bool {
	m := map[string]bool{}
	cmd.Flags().Visit(func(f *pflag.Flag) { m[f.Name] = true })
	return m
}

// registerRun registers the flags of a runbook run that run, build and
// serve share: parallelism, time limits, the cache, the environment and
// the cluster.
func (f *runFlags) registerRun(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVarP(&f.parallel, "parallel", "p", 0, "number of runbooks to run at once (default: the number of CPUs)")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Minute, "time limit per runbook, unless its front matter sets timeout")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "cache `directory` (default: $"+cache.EnvDir+", else kbook/ in the user cache directory)")
	fl.StringArrayVar(&f.env, "env", nil, "set `KEY=VALUE` in every script's environment; KEY alone passes kbook's own value of KEY (scripts inherit no other host variable; repeatable)")
	f.progress = "auto"
	f.cluster.register(cmd, true)
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
