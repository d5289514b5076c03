package plane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/cluster/plane/releasecrds"
	"github.com/k0rdent/kbook/internal/helmrepo"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/supervisor"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Options configure Start.
type Options struct {
	// Release and Paths are the k0rdent release and its cache directory
	// (controllers.K0rdentDir); the binaries are needed unless APIOnly.
	Release *controllers.K0rdentRelease
	Paths   controllers.K0rdentPaths
	// RESTConfig and Kubeconfig reach the API server, as admin (no
	// Kubeconfig: one is written from RESTConfig).
	RESTConfig *rest.Config
	Kubeconfig []byte
	// StateDir holds the plane's logs, certificates, Flux storage and
	// charts; it should be private to this run.
	StateDir string
	// APIOnly installs the CRDs and starts nothing.
	APIOnly bool
	// CRDsInstalled says the API server already serves the release's
	// CRDs, established (it started from a snapshot made after they were
	// installed): APIOnly then installs nothing.
	CRDsInstalled bool
	// Restored says the API server started from the snapshot of a plane
	// of the same inputs (SnapshotInputs) that was bootstrapped until its
	// Management was ready: Start then installs no CRDs and creates no
	// bootstrap objects, but rewires what names the previous run (its
	// webhooks' ports and CA, its Helm repository, its Flux storage) and
	// has the controllers reconcile everything again, kcm's statuses
	// cleared, before it calls the Management ready. Not with APIOnly.
	Restored bool
	// Wiring is the wiring of the plane a Restored plane's snapshot was
	// made of (Plane.Wiring), or nil: where its ports are free and its CA
	// valid for a day more, the plane serves there with that CA, so the
	// restored CRDs need no rewiring.
	Wiring *Wiring
	// CRDs are the release's CRDs when the caller has loaded them already
	// (releasecrds.Load; nil: Start loads them).
	CRDs []releasecrds.CRD
	// Launcher starts the controllers (nil: supervisor.Registry(nil)).
	Launcher supervisor.Launcher
	// Procs records the DockerClusters of CAPD's docker backend while
	// their containers may exist, so that a later kbook removes those a
	// killed one left (nil: not recorded).
	Procs  *proc.Registry
	Logger log.Logger
	// Restart is how controllers that exit are restarted (zero:
	// supervisor.DefaultRestartPolicy).
	Restart supervisor.RestartPolicy
	// Timeout bounds the whole start (default 3 minutes).
	Timeout time.Duration
}

// Plane is a running management plane.
type Plane struct {
	opts Options
	sup  *supervisor.Supervisor
	// stopOnce makes Stop safe to call twice: the local backend stops the
	// plane as soon as its API server is lost, and again when it stops.
	stopOnce sync.Once
	stopErr  error
	repo     *helmrepo.Server
	crds     int
	// storageAddr is source-controller's storage (host:port).
	storageAddr string
	// ports and certs are the controllers' (none for APIOnly).
	ports ports
	certs *Certs
	// rewired: the restored CRDs' conversion webhooks name this run's
	// ports and CA already (Options.Wiring reused).
	rewired bool
	// unlock gives back LockMachine, taken by a plane with controllers.
	unlock func()
	// engine is the container engine of CAPD's docker backend (nil: none).
	engine  *capdEngine
	Started time.Duration
}

// Start installs the release's CRDs and, unless APIOnly, starts the
// controllers, wires their webhooks and bootstraps k0rdent until the
// Management is ready. On error everything started is stopped.
//
// Its phases, in order: lock the machine (one plane with controllers per
// machine), prepare (binaries, ports, certificates, the engine),
// install the CRDs, serve the charts (namespace, kubeconfig, Helm
// repository), rewire a restored plane, start the controllers (Flux and
// Cluster API, then kcm), bootstrap (Release, ProviderTemplates,
// Management).
func Start(ctx context.Context, o Options) (p *Plane, err error) {
	if o.Logger == nil {
		o.Logger = log.NoopLogger{}
	}
	if o.Timeout == 0 {
		o.Timeout = 3 * time.Minute
	}
	if o.Restored && o.APIOnly {
		return nil, errors.New("a restored plane runs its controllers: Restored and APIOnly exclude each other")
	}
	p = &Plane{opts: o}
	defer func() {
		if err != nil {
			_ = p.Stop()
			p = nil
		}
	}()
	if !o.APIOnly {
		// Before the start's own time limit begins: waiting for another
		// kbook's plane does not count against it.
		if err := p.lock(ctx); err != nil {
			return p, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	begin := time.Now()

	crds := o.CRDs
	if crds == nil {
		if crds, err = releasecrds.Load(o.Paths); err != nil {
			return p, err
		}
	}
	if !o.APIOnly {
		if err := p.prepare(ctx, crds); err != nil {
			return p, err
		}
	}
	// A restored server serves them already, and so does one an API-only
	// caller says has them.
	if !o.Restored && !(o.CRDsInstalled && o.APIOnly) {
		if err := installCRDs(ctx, o.RESTConfig, crds); err != nil {
			return p, err
		}
		o.Logger.Infof("installed %d k0rdent %s CRDs (kcm, Flux, Sveltos, Cluster API) in %s", len(crds), o.Release.Version, time.Since(begin).Round(time.Millisecond))
	}
	p.crds = len(crds)
	if o.APIOnly {
		p.Started = time.Since(begin)
		return p, nil
	}

	st, err := p.serveCharts(ctx)
	if err != nil {
		return p, err
	}
	if o.Restored {
		st.token = restoreToken()
		if err := p.rewire(ctx, crds, st.token); err != nil {
			return p, err
		}
	}
	if err := p.startControllers(ctx, st); err != nil {
		return p, err
	}
	t0 := time.Now()
	if err := p.bootstrap(ctx, st.boot); err != nil {
		return p, err
	}
	p.Started = time.Since(begin)
	o.Logger.Infof("k0rdent %s Management ready in %s (%s since start)", o.Release.Version, time.Since(t0).Round(time.Millisecond), p.Started.Round(time.Millisecond))
	return p, nil
}

// lock waits for the plane another kbook runs on this machine, if any,
// and holds the machine until Stop: one plane with controllers per
// machine (CAPD's fixed port).
func (p *Plane) lock(ctx context.Context) (err error) {
	log := p.opts.Logger
	if p.unlock, err = LockMachine(ctx, func(msg string) { log.Infof("%s", msg) }); err != nil {
		return fmt.Errorf("waiting for the local k0rdent plane of another kbook: %w", err)
	}
	return nil
}

// prepare checks the controllers' binaries and CAPD's port, starts
// following the container engine, picks the controllers' ports and
// certificates and points the CRDs' conversion webhooks at them.
func (p *Plane) prepare(ctx context.Context, crds []releasecrds.CRD) (err error) {
	o := p.opts
	for _, c := range o.Release.Controllers {
		if why := checkExe(o.Paths.Binary(c.Name)); why != "" {
			return fmt.Errorf("k0rdent %s: %s %s (kbook cluster assets --k0rdent %s builds it)", o.Release.Version, c.Name, why, o.Release.Version)
		}
	}
	if err := capdPortFree(); err != nil {
		return err
	}
	p.engine = startEngine(ctx, o.Logger, "the plane", dockerClusters(o.RESTConfig))
	p.engine.record(o.Procs)
	if p.ports, p.certs, p.rewired, err = wire(o); err != nil {
		return err
	}
	p.storageAddr = "127.0.0.1:" + strconv.Itoa(p.ports.storage)
	return WireConversion(crds, p.ports.webhook, p.certs.CA)
}

// started is what the phases after serveCharts share.
type started struct {
	cs     kubernetes.Interface
	kcPath string
	boot   *Bootstrap
	// token marks a restored plane's objects for this run's resync ("":
	// not restored).
	token string
}

// serveCharts makes kcm's namespace and the controllers' kubeconfig, and
// serves the release's charts from an in-process Helm repository that
// the API server's locator ConfigMap names.
func (p *Plane) serveCharts(ctx context.Context) (st started, err error) {
	o := &p.opts
	if st.cs, err = kubernetes.NewForConfig(o.RESTConfig); err != nil {
		return st, err
	}
	_, err = st.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: k0rdent.SystemNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return st, fmt.Errorf("namespace %s: %w", k0rdent.SystemNamespace, err)
	}
	if len(o.Kubeconfig) == 0 {
		if o.Kubeconfig, err = kubeconfigFor(o.RESTConfig); err != nil {
			return st, err
		}
	}
	st.kcPath = filepath.Join(o.StateDir, "kubeconfig")
	if err := os.WriteFile(st.kcPath, o.Kubeconfig, 0o600); err != nil {
		return st, err
	}
	if st.boot, err = LoadBootstrap(o.Paths, o.Release); err != nil {
		return st, err
	}
	if p.repo, err = helmrepo.Start(filepath.Join(o.StateDir, "charts")); err != nil {
		return st, err
	}
	for _, ch := range st.boot.Charts {
		if _, err := p.repo.AddChart(ch); err != nil {
			return st, err
		}
	}
	// A server that ran a plane before (a snapshot, a test's shared
	// server) names that plane's repository, gone with it: this one's
	// replaces it.
	cms := st.cs.CoreV1().ConfigMaps(helmrepo.LocatorNamespace)
	_, err = cms.Create(ctx, helmrepo.Locator(p.repo.URL()), metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = cms.Update(ctx, helmrepo.Locator(p.repo.URL()), metav1.UpdateOptions{})
	}
	if err != nil {
		return st, fmt.Errorf("ConfigMap %s/%s: %w", helmrepo.LocatorNamespace, helmrepo.LocatorName, err)
	}
	return st, nil
}

// startControllers starts Flux and Cluster API first, all at once, then
// kcm once they serve (it creates Flux objects and reads Cluster API ones
// at start), its webhooks registered around it: the others' before it
// starts, its own once it serves.
func (p *Plane) startControllers(ctx context.Context, st started) (err error) {
	o := p.opts
	log := o.Logger
	policy := o.Restart
	if policy == (supervisor.RestartPolicy{}) {
		policy = supervisor.DefaultRestartPolicy
	}
	if p.sup, err = supervisor.New(filepath.Join(o.StateDir, "logs"), []string{"KUBECONFIG=" + st.kcPath}, o.Launcher, supervisor.WithRestartPolicy(policy), supervisor.WithLogger(log)); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(o.StateDir, "flux-storage"), 0o755); err != nil {
		return err
	}
	t0 := time.Now()
	var first []supervisor.Spec
	var kcm supervisor.Spec
	for _, sp := range controllerSpecs(o, p.ports, p.certs, p.repo.URL()) {
		if sp.Name == controllers.KCM {
			kcm = sp
			continue
		}
		first = append(first, sp)
	}
	errs := make(chan error, len(first))
	for _, sp := range first {
		go func() { errs <- p.sup.Start(ctx, sp, time.Minute) }()
	}
	var startErrs []error
	for range first {
		if err := <-errs; err != nil {
			startErrs = append(startErrs, err)
		}
	}
	if err := errors.Join(startErrs...); err != nil {
		return err
	}
	log.Infof("Flux and Cluster API controllers ready in %s", time.Since(t0).Round(time.Millisecond))
	if st.token != "" {
		// kcm reads the Flux objects' status: it starts once Flux has
		// reconciled them all again in this run.
		t0 = time.Now()
		if err := p.resynced(ctx, st.token); err != nil {
			return fmt.Errorf("the restored plane's Flux objects: %w", err)
		}
		log.Infof("Flux reconciled the restored HelmRepository, HelmCharts and HelmReleases in %s", time.Since(t0).Round(time.Millisecond))
	} else if err := p.prefetch(ctx, st.boot); err != nil {
		// (Otherwise source-controller fetches the templates' charts
		// while kcm starts.)
		return err
	}
	hooks, err := LoadWebhooks(o.Paths, p.ports.webhook, p.certs.CA)
	if err != nil {
		return err
	}
	if err := applyWebhooks(ctx, st.cs, hooks, controllers.KCM, false); err != nil {
		return err
	}
	t0 = time.Now()
	if err := p.sup.Start(ctx, kcm, time.Minute); err != nil {
		return err
	}
	if err := applyWebhooks(ctx, st.cs, hooks, controllers.KCM, true); err != nil {
		return err
	}
	log.Infof("kcm ready in %s", time.Since(t0).Round(time.Millisecond))
	return nil
}

// Stop stops the controllers (the last started first) and the Helm
// repository.
func (p *Plane) Stop() error {
	p.stopOnce.Do(func() {
		var errs []error
		var clusters []string
		if p.engine != nil {
			clusters, _ = p.engine.clusters() // while CAPD still runs and the API server answers
		}
		if p.sup != nil {
			errs = append(errs, p.sup.Stop(10*time.Second))
		}
		p.engine.close(clusters)
		if p.repo != nil {
			errs = append(errs, p.repo.Close())
		}
		if p.unlock != nil {
			p.unlock()
		}
		p.stopErr = errors.Join(errs...)
	})
	return p.stopErr
}

// Crashes reports controllers that exit while the plane runs.
func (p *Plane) Crashes() <-chan supervisor.Crash {
	if p.sup == nil {
		return nil
	}
	return p.sup.Crashes()
}

// Restarts lists the controllers' exits and restarts so far.
func (p *Plane) Restarts() []supervisor.Restart {
	if p.sup == nil {
		return nil
	}
	return p.sup.Restarts()
}

// Restarted delivers each controller restart once decided (see
// supervisor.Supervisor.Restarted); nil in API-only mode.
func (p *Plane) Restarted() <-chan supervisor.Restart {
	if p.sup == nil {
		return nil
	}
	return p.sup.Restarted()
}

// RepoURL is the in-process Helm repository ("" in API-only mode).
func (p *Plane) RepoURL() string {
	if p.repo == nil {
		return ""
	}
	return p.repo.URL()
}

// LogDir holds one log per controller ("" in API-only mode).
func (p *Plane) LogDir() string {
	if p.sup == nil {
		return ""
	}
	return p.sup.LogDir()
}

// Release is the k0rdent release the plane runs.
func (p *Plane) Release() *controllers.K0rdentRelease { return p.opts.Release }

// APIOnly tells whether the plane serves the k0rdent APIs without
// controllers.
func (p *Plane) APIOnly() bool { return p.opts.APIOnly }

// CRDCount is the number of CRDs installed.
func (p *Plane) CRDCount() int { return p.crds }

// PIDs maps the running controllers to their process ids.
func (p *Plane) PIDs() map[string]int {
	if p.sup == nil {
		return nil
	}
	return p.sup.PIDs()
}

// Controllers lists the running controllers.
func (p *Plane) Controllers() []string {
	if p.sup == nil {
		return nil
	}
	return p.sup.Running()
}

// kubeconfigFor writes an admin kubeconfig for cfg (certificate or token
// authentication) for the controllers.
func kubeconfigFor(cfg *rest.Config) ([]byte, error) {
	c := clientcmdapi.NewConfig()
	c.Clusters["kbook"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData, CertificateAuthority: cfg.CAFile}
	c.AuthInfos["kbook"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData,
		ClientCertificate: cfg.CertFile, ClientKey: cfg.KeyFile, Token: cfg.BearerToken,
	}
	c.Contexts["kbook"] = &clientcmdapi.Context{Cluster: "kbook", AuthInfo: "kbook"}
	c.CurrentContext = "kbook"
	return clientcmd.Write(*c)
}

// LogLines returns, per controller, the last max lines of its log that
// mention one of the words (object names): what the controllers said
// about the objects of a failed runbook.
func (p *Plane) LogLines(words []string, max int) string {
	if p.sup == nil || len(words) == 0 {
		return ""
	}
	var b strings.Builder
	for _, name := range p.opts.Release.Controllers {
		data, err := os.ReadFile(p.sup.LogPath(name.Name))
		if err != nil {
			continue
		}
		var hits []string
		for _, line := range strings.Split(string(data), "\n") {
			for _, w := range words {
				if w != "" && strings.Contains(line, w) {
					hits = append(hits, line)
					break
				}
			}
		}
		if len(hits) == 0 {
			continue
		}
		if len(hits) > max {
			hits = hits[len(hits)-max:]
		}
		fmt.Fprintf(&b, "%s (%s):\n", name.Name, p.sup.LogPath(name.Name))
		for _, h := range hits {
			if len(h) > 400 {
				h = h[:400] + "…"
			}
			b.WriteString("  " + h + "\n")
		}
	}
	return b.String()
}
