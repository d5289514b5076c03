package plane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/helmrepo"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/supervisor"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiext "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
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
	// (LoadCRDs; nil: Start loads them).
	CRDs []CRD
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

// controller ports.
type ports struct {
	health, webhook map[string]int
	storage         int
}

// Start installs the release's CRDs and, unless APIOnly, starts the
// controllers, wires their webhooks and bootstraps k0rdent until the
// Management is ready. On error everything started is stopped.
func Start(ctx context.Context, o Options) (p *Plane, err error) {
	if o.Logger == nil {
		o.Logger = log.NoopLogger{}
	}
	if o.Timeout == 0 {
		o.Timeout = 3 * time.Minute
	}
	log := o.Logger
	p = &Plane{opts: o}
	defer func() {
		if err != nil {
			_ = p.Stop()
			p = nil
		}
	}()
	if !o.APIOnly {
		// One plane with controllers per machine (CAPD's fixed port): wait
		// for the one running, before the start's own time limit begins,
		// and hold the lock until Stop.
		if p.unlock, err = LockMachine(ctx, func(msg string) { log.Infof("%s", msg) }); err != nil {
			return p, fmt.Errorf("waiting for the local k0rdent plane of another kbook: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	begin := time.Now()

	if o.Restored && o.APIOnly {
		return p, errors.New("a restored plane runs its controllers: Restored and APIOnly exclude each other")
	}
	crds := o.CRDs
	if crds == nil {
		if crds, err = LoadCRDs(o.Paths); err != nil {
			return p, err
		}
	}
	var pt ports
	var certs *Certs
	if !o.APIOnly {
		for _, c := range o.Release.Controllers {
			if why := checkExe(o.Paths.Binary(c.Name)); why != "" {
				return p, fmt.Errorf("k0rdent %s: %s %s (kbook cluster assets --k0rdent %s builds it)", o.Release.Version, c.Name, why, o.Release.Version)
			}
		}
		if err := capdPortFree(); err != nil {
			return p, err
		}
		p.engine = startEngine(ctx, log, "the plane", dockerClusters(o.RESTConfig))
		p.engine.record(o.Procs)
		if pt, certs, p.rewired, err = wire(o); err != nil {
			return p, err
		}
		p.ports, p.certs = pt, certs
		p.storageAddr = "127.0.0.1:" + strconv.Itoa(pt.storage)
		if err := WireConversion(crds, pt.webhook, certs.CA); err != nil {
			return p, err
		}
	}
	if o.CRDsInstalled && o.APIOnly {
		p.crds = len(crds)
		p.Started = time.Since(begin)
		return p, nil
	}
	if !o.Restored {
		if err := installCRDs(ctx, o.RESTConfig, crds); err != nil {
			return p, err
		}
		log.Infof("installed %d k0rdent %s CRDs (kcm, Flux, Sveltos, Cluster API) in %s", len(crds), o.Release.Version, time.Since(begin).Round(time.Millisecond))
	}
	p.crds = len(crds)
	if o.APIOnly {
		p.Started = time.Since(begin)
		return p, nil
	}

	cs, err := kubernetes.NewForConfig(o.RESTConfig)
	if err != nil {
		return p, err
	}
	for _, ns := range []string{k0rdent.SystemNamespace} {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return p, fmt.Errorf("namespace %s: %w", ns, err)
		}
	}
	if len(o.Kubeconfig) == 0 {
		if o.Kubeconfig, err = kubeconfigFor(o.RESTConfig); err != nil {
			return p, err
		}
	}
	kcPath := filepath.Join(o.StateDir, "kubeconfig")
	if err := os.WriteFile(kcPath, o.Kubeconfig, 0o600); err != nil {
		return p, err
	}
	boot, err := LoadBootstrap(o.Paths, o.Release)
	if err != nil {
		return p, err
	}
	if p.repo, err = helmrepo.Start(filepath.Join(o.StateDir, "charts")); err != nil {
		return p, err
	}
	for _, ch := range boot.Charts {
		if _, err := p.repo.AddChart(ch); err != nil {
			return p, err
		}
	}
	// A server that ran a plane before (a snapshot, a test's shared
	// server) names that plane's repository, gone with it: this one's
	// replaces it.
	cms := cs.CoreV1().ConfigMaps(helmrepo.LocatorNamespace)
	_, err = cms.Create(ctx, helmrepo.Locator(p.repo.URL()), metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = cms.Update(ctx, helmrepo.Locator(p.repo.URL()), metav1.UpdateOptions{})
	}
	if err != nil {
		return p, fmt.Errorf("ConfigMap %s/%s: %w", helmrepo.LocatorNamespace, helmrepo.LocatorName, err)
	}
	var token string
	if o.Restored {
		token = restoreToken()
		if err := p.rewire(ctx, crds, token); err != nil {
			return p, err
		}
	}

	policy := o.Restart
	if policy == (supervisor.RestartPolicy{}) {
		policy = supervisor.DefaultRestartPolicy
	}
	if p.sup, err = supervisor.New(filepath.Join(o.StateDir, "logs"), []string{"KUBECONFIG=" + kcPath}, o.Launcher, supervisor.WithRestartPolicy(policy), supervisor.WithLogger(log)); err != nil {
		return p, err
	}
	if err := os.MkdirAll(filepath.Join(o.StateDir, "flux-storage"), 0o755); err != nil {
		return p, err
	}
	specs := controllerSpecs(o, pt, certs, p.repo.URL())
	// Flux and Cluster API first, all at once; kcm once they serve, since
	// it creates Flux objects and reads Cluster API ones at start.
	t0 := time.Now()
	var first []supervisor.Spec
	var kcm supervisor.Spec
	for _, sp := range specs {
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
		return p, err
	}
	log.Infof("Flux and Cluster API controllers ready in %s", time.Since(t0).Round(time.Millisecond))
	if o.Restored {
		// kcm reads the Flux objects' status: it starts once Flux has
		// reconciled them all again in this run.
		t0 = time.Now()
		if err := p.resynced(ctx, token); err != nil {
			return p, fmt.Errorf("the restored plane's Flux objects: %w", err)
		}
		log.Infof("Flux reconciled the restored HelmRepository, HelmCharts and HelmReleases in %s", time.Since(t0).Round(time.Millisecond))
	} else if err := p.prefetch(ctx, boot); err != nil {
		// (Otherwise source-controller fetches the templates' charts
		// while kcm starts.)
		return p, err
	}
	hooks, err := LoadWebhooks(o.Paths, pt.webhook, certs.CA)
	if err != nil {
		return p, err
	}
	if err := applyWebhooks(ctx, cs, hooks, controllers.KCM, false); err != nil {
		return p, err
	}
	t0 = time.Now()
	if err := p.sup.Start(ctx, kcm, time.Minute); err != nil {
		return p, err
	}
	if err := applyWebhooks(ctx, cs, hooks, controllers.KCM, true); err != nil {
		return p, err
	}
	log.Infof("kcm ready in %s", time.Since(t0).Round(time.Millisecond))

	t0 = time.Now()
	if err := p.bootstrap(ctx, boot); err != nil {
		return p, err
	}
	p.Started = time.Since(begin)
	log.Infof("k0rdent %s Management ready in %s (%s since start)", o.Release.Version, time.Since(t0).Round(time.Millisecond), p.Started.Round(time.Millisecond))
	return p, nil
}

// capdDebugPort is where CAPD's in-memory backend always listens
// (cluster-api test/infrastructure/inmemory/pkg/server/mux.go,
// DefaultDebugPort; CAPD has no flag for it, nor for its workload
// clusters' ports from 20000 up): one local plane runs per machine.
const capdDebugPort = 19000

// capdPortFree fails, before anything starts, when another plane (or
// anything else) holds CAPD's fixed port: CAPD would otherwise crash at
// start with an address-in-use error in its log.
func capdPortFree() error {
	l, err := net.Listen("tcp", ":"+strconv.Itoa(capdDebugPort)) // as CAPD listens
	if err != nil {
		return fmt.Errorf("port %d is in use, and CAPD's in-memory backend always listens there, so one local k0rdent plane runs per machine: is another `kbook run --k0rdent`, `kbook cluster up --k0rdent` or TestPlane running? (kbook cluster status; ss -ltnp 'sport = :%d')", capdDebugPort, capdDebugPort)
	}
	return l.Close()
}

func checkExe(p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return "is not built"
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return "is not executable"
	}
	return ""
}

// wire picks the plane's ports and webhook certificates: those of
// o.Wiring for a restored plane when they can be reused (rewired), else
// new ones.
func wire(o Options) (pt ports, certs *Certs, rewired bool, err error) {
	dir := filepath.Join(o.StateDir, "certs")
	if o.Restored && o.Wiring != nil {
		var names []string
		for _, c := range o.Release.Controllers {
			if hasWebhooks(c.Name) {
				names = append(names, c.Name)
			}
		}
		ca, release, why := o.Wiring.reuse(names)
		defer release()
		if why == "" {
			// The reused ports are held until wire returns: allocate
			// skips them.
			if pt, err = allocate(o.Release); err != nil {
				return pt, nil, false, err
			}
			maps.Copy(pt.webhook, o.Wiring.WebhookPorts)
			certs, err = newCertsFrom(dir, ca)
			return pt, certs, err == nil, err
		}
		o.Logger.Infof("the snapshot's webhook ports and CA are not reused (%s): the CRDs' conversion webhooks are rewired", why)
	}
	if pt, err = allocate(o.Release); err != nil {
		return pt, nil, false, err
	}
	certs, err = NewCerts(dir)
	return pt, certs, false, err
}

// allocate picks the ports of the controllers.
func allocate(r *controllers.K0rdentRelease) (ports, error) {
	n := 2*len(r.Controllers) + 1
	free, err := planePorts(n, planePortLow, planePortHigh)
	if err != nil {
		return ports{}, err
	}
	pt := ports{health: map[string]int{}, webhook: map[string]int{}, storage: free[n-1]}
	for i, c := range r.Controllers {
		pt.health[c.Name] = free[2*i]
		if hasWebhooks(c.Name) {
			pt.webhook[c.Name] = free[2*i+1]
		}
	}
	return pt, nil
}

// The controllers' ports come from [planePortLow, planePortHigh): below
// CAPD's fixed ports (19000, workload clusters from 20000) and outside
// Linux's ephemeral range (32768-60999 by default), from which the kernel
// gives every listener on port 0 and every outgoing connection its port.
// A port picked from the ephemeral range and released until the
// controller binds it could be taken meanwhile by any connection on the
// machine (kcm once failed to start so, "bind: address already in use",
// on a loaded machine); this range is used only by the one plane that
// holds LockMachine.
const (
	planePortLow  = 17000
	planePortHigh = 19000
)

// planePorts picks n distinct ports of [low, high) free on 127.0.0.1 now,
// from a random start, wrapping around.
func planePorts(n, low, high int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	size := high - low
	start := rand.IntN(size)
	var ports []int
	for i := 0; i < size && len(ports) < n; i++ {
		p := low + (start+i)%size
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		ls = append(ls, l)
		ports = append(ports, p)
	}
	if len(ports) < n {
		return nil, fmt.Errorf("the local k0rdent plane needs %d free ports between %d and %d on 127.0.0.1, and only %d are free", n, low, high-1, len(ports))
	}
	return ports, nil
}

func hasWebhooks(name string) bool {
	switch name {
	case controllers.SourceController, controllers.HelmController:
		return false
	}
	return true
}

// Requeue settings: the controllers' defaults suit a long-running
// cluster, not a plane that must be ready in seconds.
const (
	// requeueDependency is how soon helm-controller looks again at a
	// HelmRelease whose dependsOn or HelmChart is not ready
	// (helm-controller's default 30s; kcm's chart does not set it).
	// kcm's HelmReleases are a chain (kcm, then capi, then the providers
	// and Sveltos): at 2s the restored plane's Flux resync was 5.4 s,
	// mostly those waits; at 500ms 3.4 s (idle machine).
	requeueDependency = "500ms"
	capiPollInterval  = "5s"
	// fluxConcurrent is source-controller's --concurrent (its default 2):
	// a restored plane has every HelmChart (about 15) fetched again, and
	// two at a time kcm's own chart waited behind others; at 8 the Flux
	// resync took 3.1-3.5 s, not 3.1-4.7 s.
	fluxConcurrent = "8"
)

// controllerSpecs are the processes of the plane, as each project's
// deployment runs them, with local addresses.
func controllerSpecs(o Options, pt ports, certs *Certs, repoURL string) []supervisor.Spec {
	addr := func(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
	var specs []supervisor.Spec
	for _, c := range o.Release.Controllers {
		h := pt.health[c.Name]
		sp := supervisor.Spec{Name: c.Name, Path: o.Paths.Binary(c.Name), Ready: httpReady(h, "/readyz")}
		switch c.Name {
		case controllers.SourceController:
			storage := filepath.Join(o.StateDir, "flux-storage")
			sp.Args = []string{
				"--storage-path=" + storage, "--storage-addr=" + addr(pt.storage), "--storage-adv-addr=" + addr(pt.storage),
				"--health-addr=" + addr(h), "--metrics-addr=0", "--events-addr=", "--watch-all-namespaces=true",
				"--requeue-dependency=" + requeueDependency, "--concurrent=" + fluxConcurrent, "--log-level=info", "--log-encoding=console",
			}
			sp.Env = []string{"RUNTIME_NAMESPACE=" + k0rdent.SystemNamespace}
		case controllers.HelmController:
			sp.Args = []string{
				"--health-addr=" + addr(h), "--metrics-addr=0", "--events-addr=", "--watch-all-namespaces=true",
				"--requeue-dependency=" + requeueDependency, "--log-level=info", "--log-encoding=console",
			}
			sp.Env = []string{"RUNTIME_NAMESPACE=" + k0rdent.SystemNamespace}
		case controllers.KCM:
			sp.Args = []string{
				"--templates-repo-url=" + repoURL,
				"--create-management=false", "--create-release=false", "--create-templates=false",
				"--create-access-management=true",
				"--enable-webhook=true", "--webhook-port=" + strconv.Itoa(pt.webhook[c.Name]), "--webhook-cert-dir=" + certs.Dir,
				"--health-probe-bind-address=" + addr(h), "--metrics-bind-address=0",
				"--leader-election-namespace=" + k0rdent.SystemNamespace,
				"--flux-enabled=true", "--enable-sveltos-ctrl=true",
				"--capi-cluster-poll-interval=" + capiPollInterval,
				"--zap-devel=false",
			}
			sp.Env = []string{"POD_NAMESPACE=" + k0rdent.SystemNamespace, "KCM_NAME=kcm-controller-manager", "HELM_RELEASE_NAME=kcm"}
			sp.Ready = all(httpReady(h, "/readyz"), tlsReady(pt.webhook[c.Name], certs.CA))
		default: // the Cluster API managers
			sp.Args = []string{
				"--webhook-port=" + strconv.Itoa(pt.webhook[c.Name]), "--webhook-cert-dir=" + certs.Dir,
				"--health-addr=" + addr(h), "--diagnostics-address=0", "--insecure-diagnostics=true",
				"--leader-elect=false", "--v=1",
			}
			if c.Name == controllers.CAPD {
				sp.Env = []string{"POD_IP=127.0.0.1"}
			}
			sp.Ready = all(httpReady(h, "/readyz"), tlsReady(pt.webhook[c.Name], certs.CA))
		}
		specs = append(specs, sp)
	}
	return specs
}

func all(checks ...func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		for _, c := range checks {
			if err := c(ctx); err != nil {
				return err
			}
		}
		return nil
	}
}

func httpReady(port int, path string) func(context.Context) error {
	url := fmt.Sprintf("http://127.0.0.1:%d%s", port, path)
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", url, resp.Status)
		}
		return nil
	}
}

// tlsReady succeeds once a webhook server serves TLS with our certificate.
func tlsReady(port int, ca []byte) func(context.Context) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return func(ctx context.Context) error {
		d := tls.Dialer{Config: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}}
		c, err := d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			return fmt.Errorf("webhook server: %w", err)
		}
		return c.Close()
	}
}

// installCRDs creates or updates the CRDs and waits until all are served.
func installCRDs(ctx context.Context, cfg *rest.Config, crds []CRD) error {
	cs, err := apiext.NewForConfig(cfg)
	if err != nil {
		return err
	}
	api := cs.ApiextensionsV1().CustomResourceDefinitions()
	// A few at a time: each CRD makes the API server build its OpenAPI
	// and handlers, which dominates.
	jobs := make([]func() error, len(crds))
	for i, c := range crds {
		jobs[i] = func() error {
			obj := c.Object.DeepCopy()
			_, err := api.Create(ctx, obj, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				cur, gerr := api.Get(ctx, obj.Name, metav1.GetOptions{})
				if gerr != nil {
					return fmt.Errorf("CRD %s (%s): %w", obj.Name, c.Source, gerr)
				}
				obj.ResourceVersion = cur.ResourceVersion
				_, err = api.Update(ctx, obj, metav1.UpdateOptions{})
			}
			if err != nil {
				return fmt.Errorf("CRD %s (%s): %w", obj.Name, c.Source, err)
			}
			return nil
		}
	}
	if err := atOnce(6, jobs); err != nil {
		return err
	}
	for _, c := range crds {
		for {
			cur, err := api.Get(ctx, c.Object.Name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("CRD %s: %w", c.Object.Name, err)
			}
			if established(cur) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("CRD %s not established: %w", c.Object.Name, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return nil
}

func established(c *apiextv1.CustomResourceDefinition) bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == apiextv1.Established && cond.Status == apiextv1.ConditionTrue {
			return true
		}
	}
	return false
}

// applyWebhooks creates the webhook configurations of kcm (kcm true) or
// of every other controller (kcm false).
func applyWebhooks(ctx context.Context, cs kubernetes.Interface, w *Webhooks, kcmName string, kcm bool) error {
	mine := func(name string) bool { return strings.HasPrefix(name, "kbook-"+kcmName+"-") == kcm }
	for _, c := range w.Mutating {
		if !mine(c.Name) {
			continue
		}
		if err := upsert(ctx, c.Name, func() error {
			_, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, c, metav1.CreateOptions{})
			return err
		}, func() error {
			return cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, c.Name, metav1.DeleteOptions{})
		}); err != nil {
			return err
		}
	}
	for _, c := range w.Validating {
		if !mine(c.Name) {
			continue
		}
		if err := upsert(ctx, c.Name, func() error {
			_, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, c, metav1.CreateOptions{})
			return err
		}, func() error {
			return cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, c.Name, metav1.DeleteOptions{})
		}); err != nil {
			return err
		}
	}
	return nil
}

// upsert creates, or replaces what a previous plane left.
func upsert(ctx context.Context, name string, create, del func() error) error {
	err := create()
	if apierrors.IsAlreadyExists(err) {
		if err := del(); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("webhook configuration %s: %w", name, err)
		}
		err = create()
	}
	if err != nil {
		return fmt.Errorf("webhook configuration %s: %w", name, err)
	}
	return nil
}

var (
	releaseGVR    = k0rdent.GVR("releases")
	ptGVR         = k0rdent.GVR("providertemplates")
	managementGVR = k0rdent.GVR("managements")
)

// bootstrap creates the Release and its ProviderTemplates, waits until
// kcm has validated them, then creates the Management and waits until it
// is ready: its components installed by helm-controller.
func (p *Plane) bootstrap(ctx context.Context, b *Bootstrap) error {
	dc, err := dynamic.NewForConfig(p.opts.RESTConfig)
	if err != nil {
		return err
	}
	// The objects carry what kcm would add first thing (its component
	// label, the templates' owner), each of which would otherwise cost a
	// requeue: kcm's rate limiter waits 5 s before every retry.
	// A restored plane has them all already: nothing is created, kcm has
	// only to find them valid and ready again (rewire cleared their status).
	restored := p.opts.Restored
	release := b.Release.DeepCopy()
	release.SetLabels(merge(release.GetLabels(), map[string]string{k0rdent.ComponentLabel: "kcm"}))
	var rel *unstructured.Unstructured
	if restored {
		rel, err = dc.Resource(releaseGVR).Get(ctx, release.GetName(), metav1.GetOptions{})
	} else {
		rel, err = createOrGet(ctx, dc.Resource(releaseGVR), release)
	}
	if err != nil {
		return fmt.Errorf("Release %s: %w", b.Release.GetName(), err)
	}
	for _, t := range b.ProviderTemplates {
		if restored {
			break
		}
		t = t.DeepCopy()
		t.SetLabels(merge(t.GetLabels(), map[string]string{k0rdent.ComponentLabel: "kcm"}))
		t.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: k0rdent.APIVersion, Kind: k0rdent.KindRelease, Name: rel.GetName(), UID: rel.GetUID()}})
		if _, err := createOrGet(ctx, dc.Resource(ptGVR), t); err != nil {
			return fmt.Errorf("ProviderTemplate %s: %w", t.GetName(), err)
		}
	}
	for _, t := range b.ProviderTemplates {
		if err := waitFor(ctx, dc.Resource(ptGVR), t.GetName(), func(o *unstructured.Unstructured) (bool, string) {
			v, _, _ := unstructured.NestedBool(o.Object, "status", "valid")
			msg, _, _ := unstructured.NestedString(o.Object, "status", "validationError")
			return v, msg
		}); err != nil {
			return fmt.Errorf("ProviderTemplate %s: %w", t.GetName(), err)
		}
	}
	// kcm validated the templates; the Release learns on its next retry
	// unless asked now.
	if err := nudge(ctx, dc.Resource(releaseGVR), rel.GetName()); err != nil {
		return err
	}
	if err := waitFor(ctx, dc.Resource(releaseGVR), rel.GetName(), func(o *unstructured.Unstructured) (bool, string) {
		ready, _, _ := unstructured.NestedBool(o.Object, "status", "ready")
		return ready, conditionMessages(o)
	}); err != nil {
		return fmt.Errorf("Release %s: %w", rel.GetName(), err)
	}
	if !restored {
		if err := createManagement(ctx, dc.Resource(managementGVR), b.Management); err != nil {
			return fmt.Errorf("Management: %w", err)
		}
	}
	// kcm re-reads the components' HelmReleases every 10 s; each one that
	// becomes ready lets the next start. Once helm-controller has
	// installed the first, ask for a reconcile every second instead.
	hr := dc.Resource(k0rdent.HelmReleaseGVR).Namespace(k0rdent.SystemNamespace)
	var lastNudge time.Time
	nudgeOnReady := func() {
		if time.Since(lastNudge) < time.Second {
			return
		}
		list, err := hr.List(ctx, metav1.ListOptions{})
		if err != nil {
			return
		}
		for _, o := range list.Items {
			if conditionTrue(&o, "Ready") {
				lastNudge = time.Now()
				_ = nudge(ctx, dc.Resource(managementGVR), k0rdent.ManagementName)
				return
			}
		}
	}
	if err := waitFor(ctx, dc.Resource(managementGVR), k0rdent.ManagementName, func(o *unstructured.Unstructured) (bool, string) {
		nudgeOnReady()
		comps, _, _ := unstructured.NestedMap(o.Object, "status", "components")
		var pending []string
		for name, c := range comps {
			m, _ := c.(map[string]any)
			if ok, _ := m["success"].(bool); !ok {
				msg, _ := m["error"].(string)
				pending = append(pending, name+": "+msg)
			}
		}
		return conditionTrue(o, "Ready") && len(comps) > 0 && len(pending) == 0, strings.Join(pending, "; ") + " " + conditionMessages(o)
	}); err != nil {
		return fmt.Errorf("Management %s: %w", k0rdent.ManagementName, err)
	}
	return nil
}

// prefetch creates the HelmRepository and HelmCharts kcm creates for the
// ProviderTemplates, with the specs kcm gives them (template_controller.go
// reconcileHelmChart, helm.DefaultRegistryConfig), so source-controller
// has the charts when kcm first looks instead of kcm retrying 5 s later.
// kcm then adopts them: it only adds its owner references.
func (p *Plane) prefetch(ctx context.Context, b *Bootstrap) error {
	dc, err := dynamic.NewForConfig(p.opts.RESTConfig)
	if err != nil {
		return err
	}
	managed := map[string]any{k0rdent.ManagedLabel: "true"}
	repo := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": k0rdent.FluxSourceAPIVersion, "kind": k0rdent.KindHelmRepository,
		"metadata": map[string]any{"name": k0rdent.TemplatesRepoName, "namespace": k0rdent.SystemNamespace, "labels": managed},
		"spec":     map[string]any{"type": "default", "url": p.repo.URL(), "interval": "10m0s"},
	}}
	if _, err := createOrGet(ctx, dc.Resource(k0rdent.HelmRepositoryGVR).Namespace(k0rdent.SystemNamespace), repo); err != nil {
		return fmt.Errorf("HelmRepository %s: %w", k0rdent.TemplatesRepoName, err)
	}
	for _, t := range b.ProviderTemplates {
		spec, _, _ := unstructured.NestedMap(t.Object, "spec", "helm", "chartSpec")
		hc := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": k0rdent.FluxSourceAPIVersion, "kind": k0rdent.KindHelmChart,
			"metadata": map[string]any{"name": t.GetName(), "namespace": k0rdent.SystemNamespace, "labels": managed},
			"spec":     spec,
		}}
		if _, err := createOrGet(ctx, dc.Resource(k0rdent.HelmChartGVR).Namespace(k0rdent.SystemNamespace), hc); err != nil {
			return fmt.Errorf("HelmChart %s: %w", t.GetName(), err)
		}
	}
	return nil
}

func nudge(ctx context.Context, r dynamic.NamespaceableResourceInterface, name string) error {
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, k0rdent.NudgeAnnotation, time.Now().UTC().Format(time.RFC3339Nano))
	if _, err := r.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("annotate %s: %w", name, err)
	}
	return nil
}

// merge returns a new map of a's entries, then b's.
func merge(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a)+len(b))
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}

func createOrGet(ctx context.Context, r dynamic.ResourceInterface, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	got, err := r.Create(ctx, o, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return r.Get(ctx, o.GetName(), metav1.GetOptions{})
	}
	return got, err
}

// createManagement creates the Management once kcm's webhook admits it.
// The webhook reads the Release through kcm's informer cache
// (internal/webhook/management_webhook.go, validateRelease), which can
// still hold the Release from before it became Ready when the API server
// already says Ready: under load that lag refused the Management with
// "release ... status is not ready". That refusal is retried until the
// cache catches up or ctx ends; any other error returns at once.
func createManagement(ctx context.Context, r dynamic.ResourceInterface, m *unstructured.Unstructured) error {
	return poll(ctx, func() (bool, string, error) {
		_, err := createOrGet(ctx, r, m)
		switch {
		case err == nil:
			return true, "", nil
		case releaseNotReadyYet(err):
			return false, "kcm's webhook still saw the Release not ready: " + err.Error(), nil
		}
		return false, "", err
	})
}

// releaseNotReadyYet reports whether err is kcm's webhook refusing a
// Management because the Release it names is not ready (in its cache).
func releaseNotReadyYet(err error) bool {
	return strings.Contains(err.Error(), "admission webhook") && strings.Contains(err.Error(), "status is not ready")
}

// waitFor waits until done says so of the cluster-scoped object name,
// looking again each time it changes and at least every second.
func waitFor(ctx context.Context, r dynamic.NamespaceableResourceInterface, name string, done func(*unstructured.Unstructured) (bool, string)) error {
	last := ""
	for {
		o, err := r.Get(ctx, name, metav1.GetOptions{})
		rv := ""
		if err == nil {
			ok, why := done(o)
			if ok {
				return nil
			}
			last, rv = why, o.GetResourceVersion()
		} else {
			last = err.Error()
		}
		if err := changed(ctx, r, name, rv); err != nil {
			return fmt.Errorf("not ready: %s (%w)", strings.TrimSpace(last), err)
		}
	}
}

// changed returns when the object name changes after resourceVersion rv
// (watched: the controllers' status updates end it at once), after a
// second at the latest (done may look at other objects, and a watch can
// end or fail: the caller looks again), or with ctx's error.
func changed(ctx context.Context, r dynamic.NamespaceableResourceInterface, name, rv string) error {
	wctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if rv != "" {
		if w, err := r.Watch(wctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: rv}); err == nil {
			defer w.Stop()
			select {
			case ev, ok := <-w.ResultChan():
				if ok && ev.Type != watch.Error {
					return nil
				}
				// A watch that ended or failed: not a change, so no
				// busy loop of them; the wait below.
			case <-wctx.Done():
				return ctx.Err()
			}
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(200 * time.Millisecond):
		return nil
	}
}

// poll calls try every 200 ms until it is done, fails (its error is
// returned at once) or ctx ends: then the error names the last reason try
// gave for not being done.
func poll(ctx context.Context, try func() (done bool, why string, err error)) error {
	last := ""
	for {
		done, why, err := try()
		if err != nil || done {
			return err
		}
		last = why
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready: %s (%w)", strings.TrimSpace(last), ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func conditionTrue(o *unstructured.Unstructured, typ string) bool {
	c, _ := k0rdent.FindCondition(o, typ)
	return c["status"] == "True"
}

func conditionMessages(o *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	var out []string
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["status"] != "True" {
			out = append(out, fmt.Sprintf("%v=%v: %v", m["type"], m["status"], m["message"]))
		}
	}
	return strings.Join(out, "; ")
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
