package local

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Server is a running etcd and kube-apiserver.
type Server struct {
	cp   *envtest.ControlPlane
	dirs []string
	cfg  *rest.Config
	kc   []byte
	// seed fills etcd's empty data directory before etcd starts (WithData).
	seed func(dataDir string) error
	// log gets the start's phases with their durations (WithLogger).
	log log.Logger
	// apiDone is closed when envtest's start of kube-apiserver returned,
	// with apiErr (see awaitRestored).
	apiDone chan struct{}
	apiErr  error

	// etcdDir and certDir are on the command lines of etcd and
	// kube-apiserver alone: how watch finds them.
	etcdDir, certDir string
	mu               sync.Mutex
	pids             map[string]int
	procs            map[string]proc.Process // pids with start times, for Check
	stopping         bool
	lost             chan struct{}
	lostErr          error
}

// Start starts etcd and kube-apiserver from the binaries in dir (retrying,
// as envtest does, when a port it picked was taken meanwhile), provisions
// an admin user and waits for the default namespace. With a nil procs the
// servers are neither wrapped nor recorded and their directories are made
// in os.TempDir().
func Start(dir string, procs *proc.Registry, opts ...Option) (*Server, error) {
	s := &Server{}
	for _, o := range opts {
		o(s)
	}
	s.log = log.Or(s.log)
	if err := s.describe(dir, procs); err != nil {
		s.removeDirs()
		return nil, err
	}
	if s.seed != nil {
		begin := time.Now()
		if err := s.seed(s.cp.Etcd.DataDir); err != nil {
			s.removeDirs()
			return nil, fmt.Errorf("etcd data: %w", err)
		}
		s.log.Infof("  etcd data restored in %s", since(begin))
	}
	if err := s.start(); err != nil {
		_ = s.Stop()
		return nil, err
	}
	s.watch()
	return s, nil
}

// watch closes Lost when etcd or kube-apiserver exits while the server
// is not being stopped. When etcd goes, kube-apiserver is killed too: it
// would otherwise accept requests and hold them until its own timeout
// (a minute), where a dead server refuses them at once. Linux only (the
// processes are found in /proc and watched through pidfds); elsewhere
// Lost never closes.
func (s *Server) watch() {
	s.lost = make(chan struct{})
	s.pids = map[string]int{}
	s.procs = map[string]proc.Process{}
	for _, w := range []struct{ name, arg string }{{binaries.Etcd, s.etcdDir}, {binaries.KubeAPIServer, s.certDir}} {
		pids := proc.ChildrenWith(w.arg)
		if len(pids) != 1 {
			continue
		}
		p, err := proc.Inspect(pids[0])
		if err != nil {
			continue
		}
		exited, err := proc.Exited(pids[0])
		if err != nil {
			continue
		}
		s.pids[w.name] = pids[0]
		s.procs[w.name] = p
		go func(name string, pid int) {
			<-exited
			s.markLost(name, pid)
		}(w.name, pids[0])
	}
}

// markLost records that process name exited and closes Lost, once, unless
// the server is being stopped.
func (s *Server) markLost(name string, pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping || s.lostErr != nil {
		return
	}
	s.lostErr = fmt.Errorf("the local API server's %s (pid %d) exited: the cluster is gone, the runbooks using it fail; the next run starts a new one", name, pid)
	if name == binaries.Etcd {
		if api, ok := s.pids[binaries.KubeAPIServer]; ok {
			_ = proc.Kill(api)
		}
	}
	close(s.lost)
}

// Lost is closed when etcd or kube-apiserver exits on its own; Err says
// which.
func (s *Server) Lost() <-chan struct{} { return s.lost }

// Err is why Lost closed (nil while the server runs).
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lostErr
}

// Check is Err after looking at the processes themselves: a process that
// is gone (or a zombie) counts as lost even before its pidfd's watcher
// ran. The runner asks it when a runbook ends, so that a command which
// failed because the server had just died (and a negated one that
// "passed" for that reason) is never taken for the runbook's own result.
func (s *Server) Check() error {
	procs := s.processes()
	for _, name := range []string{binaries.Etcd, binaries.KubeAPIServer} {
		if p, ok := procs[name]; ok && !p.Running() {
			s.markLost(name, p.PID)
		}
	}
	return s.Err()
}

// PIDs maps etcd and kube-apiserver to their process ids (Linux).
func (s *Server) PIDs() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.pids {
		out[k] = v
	}
	return out
}

// describe makes the directories and wrappers of the control plane.
func (s *Server) describe(dir string, procs *proc.Registry) error {
	etcdDir, err := procs.MkdirTemp("kbook-etcd-")
	if err != nil {
		return err
	}
	s.dirs = append(s.dirs, etcdDir)
	certDir, err := procs.MkdirTemp("kbook-apiserver-")
	if err != nil {
		return err
	}
	s.dirs = append(s.dirs, certDir)
	s.etcdDir, s.certDir = etcdDir, certDir
	etcdPath, apiPath, err := wrapBinaries(procs, dir)
	if err != nil {
		return err
	}
	const startTimeout, stopTimeout = 2 * time.Minute, 30 * time.Second
	s.cp = &envtest.ControlPlane{
		Etcd:        &envtest.Etcd{Path: etcdPath, DataDir: etcdDir, StartTimeout: startTimeout, StopTimeout: stopTimeout},
		APIServer:   &envtest.APIServer{Path: apiPath, CertDir: certDir, StartTimeout: startTimeout, StopTimeout: stopTimeout},
		KubectlPath: filepath.Join(dir, binaries.Kubectl),
	}
	// A one-member etcd elects itself after an election timeout (1 s by
	// default, half of it fast-forwarded): a throwaway local one need not
	// wait that long.
	s.cp.Etcd.Configure().Set("heartbeat-interval", "20").Set("election-timeout", "200")
	// API Priority and Fairness queues the requests of many tenants; one
	// user's local server only pays its bootstrap and its controller.
	s.cp.APIServer.Configure().Set("enable-priority-and-fairness", "false").Set("profiling", "false")
	return nil
}

func (s *Server) start() error {
	var err error
	for try := 0; try < 3; try++ {
		if err = s.startProcesses(); err == nil {
			break
		}
	}
	if err != nil {
		return err
	}
	begin := time.Now()
	admin, err := s.cp.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, &rest.Config{QPS: 1000, Burst: 2000})
	if err != nil {
		return fmt.Errorf("provision the admin user: %w", err)
	}
	if s.kc, err = admin.KubeConfig(); err != nil {
		return fmt.Errorf("admin kubeconfig: %w", err)
	}
	s.cfg = admin.Config()
	cs, err := kubernetes.NewForConfig(s.cfg)
	if err != nil {
		return err
	}
	// The default namespace is made by a controller of kube-apiserver's
	// after it reports healthy: watched, not polled.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := waitForObject(ctx, cs, metav1.NamespaceDefault); err != nil {
		return fmt.Errorf("the default namespace did not appear within 30s: %w", err)
	}
	s.log.Infof("  admin user and default namespace in %s", since(begin))
	return nil
}

// startProcesses starts etcd and kube-apiserver on it side by side, as
// envtest.ControlPlane.Start does one after the other, and without its
// second ("default") user, whose certificate and kubeconfig kbook never
// uses. Most of kube-apiserver's start (its flags, certificates, the
// storage of every API) needs no etcd, and it connects once etcd serves:
// started together, etcd's start (and its wrapper's) is off the path to a
// healthy server (0.3-0.4 s of about 3). A server started from saved data
// is ready before envtest's wait ends (awaitRestored).
func (s *Server) startProcesses() error {
	begin := time.Now()
	u, err := freeURL()
	if err != nil {
		return err
	}
	authn, err := newCertAuthn()
	if err != nil {
		return err
	}
	s.cp.Etcd.URL, s.cp.APIServer.EtcdURL = u, u
	s.cp.APIServer.SecureServing.Authn = authn
	apiDone := make(chan struct{})
	s.apiDone = apiDone
	etcdDone := make(chan error, 1)
	var etcdTook time.Duration
	go func() {
		err := s.cp.Etcd.Start()
		etcdTook = since(begin)
		etcdDone <- err
		if err == nil {
			return
		}
		// kube-apiserver would wait for the missing etcd (about 20 s before
		// it gives up by itself): end it, once it has been started, so
		// that Start returns.
		for {
			s.killAPIServer()
			select {
			case <-apiDone:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	go func() {
		s.apiErr = s.cp.APIServer.Start()
		close(apiDone)
	}()
	var apiErr error
	if s.seed != nil && earlyReady {
		apiErr = s.awaitRestored(authn)
	} else {
		<-apiDone
		apiErr = s.apiErr
	}
	if err := <-etcdDone; err != nil {
		<-apiDone
		_ = s.cp.APIServer.Stop()
		return err
	}
	s.log.Infof("  etcd serving in %s", etcdTook)
	if apiErr != nil {
		<-apiDone
		_ = s.cp.Etcd.Stop()
		return apiErr
	}
	select {
	case <-apiDone:
		s.log.Infof("  kube-apiserver healthy in %s", since(begin))
	default:
		s.log.Infof("  kube-apiserver healthy in %s (but for its bootstrap of RBAC roles and priority classes, which the restored data holds)", since(begin))
	}
	return nil
}

// earlyReady: awaitRestored ends envtest's wait by killing kube-apiserver
// when the server is stopped before that wait is over, which needs the
// processes found in /proc.
const earlyReady = runtime.GOOS == "linux"

// restoredHooks are the post-start hooks a server started from saved data
// is not waited for: each only re-confirms objects that data already holds
// (it was saved from a server that had run them, by the same binary), and
// each begins with a fixed one-second sleep (k8s.io/kubernetes
// pkg/registry/rbac/rest/storage_rbac.go and
// pkg/registry/scheduling/rest/storage_scheduling.go: wait.Poll(1*time.Second,
// ...), which waits the interval before its first try), so /healthz cannot
// pass in less than a second after the server serves. kbook's users are
// system:masters, which RBAC never gates. Every other check (etcd, the
// CRDs' informers and controllers, the API services) is waited for.
var restoredHooks = []string{
	"poststarthook/rbac/bootstrap-roles",
	"poststarthook/scheduling/bootstrap-system-priority-classes",
}

// awaitRestored waits until kube-apiserver's /healthz passes but for
// restoredHooks, polling every 20 ms (envtest: 100 ms), or until envtest's
// Start returns (an error: the process ended or timed out; nil: fully
// healthy). envtest goes on waiting for the whole /healthz meanwhile;
// stopping the server ends that wait first (endAPIStart).
func (s *Server) awaitRestored(authn *certAuthn) error {
	select {
	case <-authn.Prepared():
	case <-s.apiDone:
		return s.apiErr
	}
	// Set by envtest before Prepared closed, and not written after.
	serving := s.cp.APIServer.SecureServing
	u := serving.URL("https", "/healthz")
	u.RawQuery = url.Values{"exclude": restoredHooks}.Encode()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(serving.CA)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 2 * time.Second}
	defer client.CloseIdleConnections()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if res, err := client.Get(u.String()); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.apiDone:
			return s.apiErr
		case <-tick.C:
		}
	}
}

// endAPIStart returns once envtest's start of kube-apiserver has
// returned: after awaitRestored it may still wait for /healthz, and
// stopping the process under it would race with it. With kill, the
// process is killed first, which ends that wait at once; without, the
// wait runs out (the server was healthy but for restoredHooks, which pass
// a second or two later).
func (s *Server) endAPIStart(kill bool) {
	if s.apiDone == nil {
		return
	}
	select {
	case <-s.apiDone:
		return
	default:
	}
	if kill {
		s.killAPIServer()
	}
	<-s.apiDone
}

// killAPIServer kills this server's kube-apiserver, found in /proc by its
// certificate directory (Linux; elsewhere it finds nothing).
func (s *Server) killAPIServer() {
	for _, pid := range proc.ChildrenWith(s.certDir) {
		_ = proc.Kill(pid)
	}
}

// freeURL is an http URL on a loopback port free now, for etcd's clients:
// kube-apiserver is given it before etcd has started. (A port taken in
// between fails etcd's start, and start tries again.)
func freeURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("pick a port for etcd: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return nil, fmt.Errorf("pick a port for etcd: %w", err)
	}
	return &url.URL{Scheme: "http", Host: addr}, nil
}

// waitForObject waits until the namespace exists, watching for it.
func waitForObject(ctx context.Context, cs kubernetes.Interface, name string) error {
	for {
		list, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
		if err == nil && len(list.Items) > 0 {
			return nil
		}
		if err != nil {
			// kube-apiserver may still refuse requests for a moment
			// after its health check passed.
			select {
			case <-ctx.Done():
				return err
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		w, err := cs.CoreV1().Namespaces().Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: list.ResourceVersion})
		if err != nil {
			continue
		}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Added {
				w.Stop()
				return nil
			}
		}
		w.Stop()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Millisecond) }

// Config is the admin user's client configuration.
func (s *Server) Config() *rest.Config { return rest.CopyConfig(s.cfg) }

// EtcdURL is etcd's client URL.
func (s *Server) EtcdURL() string {
	if s.cp == nil || s.cp.Etcd == nil || s.cp.Etcd.URL == nil {
		return ""
	}
	return s.cp.Etcd.URL.String()
}

// Kubeconfig is the admin user's kubeconfig.
func (s *Server) Kubeconfig() []byte { return s.kc }

// Stop stops kube-apiserver and etcd and removes their directories. The
// data is thrown away, so both are killed rather than asked to stop
// (kube-apiserver's graceful termination alone takes seconds); StopSaving
// is the graceful stop.
func (s *Server) Stop() error {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	var errs []error
	if s.cp != nil {
		killed := s.kill()
		s.endAPIStart(true)
		// After a kill, envtest's stop only collects the exits (and may
		// find a process it has just reaped gone: not an error here).
		if err := s.cp.Stop(); err != nil && !killed {
			errs = append(errs, fmt.Errorf("stop local API server: %w", err))
		}
	}
	errs = append(errs, s.removeDirs())
	return errors.Join(errs...)
}

// processes is a copy of the processes watch found.
func (s *Server) processes() map[string]proc.Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.procs)
}

// kill sends SIGKILL to kube-apiserver and etcd, if they still run the
// processes watch found, and waits until both are gone. false: they were
// not found (not Linux), not both running, or not gone.
func (s *Server) kill() bool {
	procs := s.processes()
	var gone []<-chan struct{}
	for _, name := range []string{binaries.KubeAPIServer, binaries.Etcd} {
		p, ok := procs[name]
		if !ok || !p.Running() {
			return false
		}
		exited, err := proc.Exited(p.PID)
		if err != nil {
			return false
		}
		if err := proc.Kill(p.PID); err != nil {
			return false
		}
		gone = append(gone, exited)
	}
	for _, g := range gone {
		<-g
	}
	return true
}

func (s *Server) removeDirs() error {
	var errs []error
	for _, d := range s.dirs {
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, fmt.Errorf("stop local API server: %w", err))
		}
	}
	s.dirs = nil
	return errors.Join(errs...)
}
