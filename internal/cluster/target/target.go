package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
	"github.com/k0rdent/kbook/internal/supervisor"
	"github.com/rogpeppe/go-internal/testscript"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Target is a cluster for the runbook runner. The cluster starts on first
// use, so a run whose runbooks all come from the cache or need no cluster
// never starts one.
type Target struct {
	opts     cluster.Options
	id       string
	keep     bool
	parallel bool
	reused   bool
	reusedAs string
	ctx      context.Context
	start    func(context.Context) (cluster.Cluster, error)

	once    sync.Once
	cluster cluster.Cluster
	err     error

	// broken is closed when the cluster is lost (cluster.Lost); why says
	// why, looking at the server's processes again (nil before the
	// cluster started or for clusters kbook does not run).
	broken chan struct{}
	why    func() error

	mu       sync.Mutex
	before   map[types.UID]object // run-level snapshot, for parallel runs
	runbookN map[string]bool      // namespaces of runbooks, never "leftovers"
	// runAttr ties objects to the run's runbooks on a shared cluster
	// (parallel runs' cleanup at the end).
	runAttr attribution
}

// Option configures a Target.
type Option func(*Target)

// Keep leaves runbook namespaces and the objects runbooks created in place.
func Keep(keep bool) Option { return func(t *Target) { t.keep = keep } }

// Parallel says runbooks share the cluster at the same time: objects they
// create outside their namespaces are then deleted when the run ends, not
// after each runbook, so no runbook deletes what another still uses.
func Parallel(p bool) Option { return func(t *Target) { t.parallel = p } }

// WithCluster uses an already running cluster (kbook run --reuse); Close
// leaves it running.
func WithCluster(c cluster.Cluster) Option {
	return func(t *Target) {
		t.reused = true
		t.start = func(context.Context) (cluster.Cluster, error) { return c, nil }
	}
}

// ReusedAs names a cluster handed in with WithCluster in cache keys and
// reports ("cluster default, up since ..."): state it kept from earlier
// work may differ from a fresh cluster's, so results are not shared with
// fresh runs.
func ReusedAs(what string) Option { return func(t *Target) { t.reusedAs = what } }

// New prepares a target for the options without starting anything; it
// fails early on options that can never work (a kubeconfig that does not
// load, a CRD path that does not exist).
func New(ctx context.Context, o cluster.Options, opts ...Option) (*Target, error) {
	t := &Target{opts: o, ctx: ctx, runbookN: map[string]bool{}, broken: make(chan struct{})}
	t.start = func(ctx context.Context) (cluster.Cluster, error) { return cluster.Up(ctx, t.opts) }
	for _, opt := range opts {
		opt(t)
	}
	id, err := cluster.Identity(o)
	if err != nil {
		return nil, err
	}
	t.id = id
	if t.reusedAs != "" {
		t.id += " reused " + t.reusedAs
	}
	return t, nil
}

// ID implements runner.Target.
func (t *Target) ID() string { return t.id }

// Backend is the backend name.
func (t *Target) Backend() string { return t.opts.Backend }

// Cluster starts the cluster on first call and returns it.
func (t *Target) Cluster() (cluster.Cluster, error) {
	t.once.Do(func() {
		t.cluster, t.err = t.start(t.ctx)
		if t.err == nil && t.reused {
			// Up installs the CRDs of a cluster it starts.
			t.err = cluster.InstallCRDs(t.ctx, t.cluster.RESTConfig(), t.opts.CRDs, t.opts.Log())
		}
		// What parallel runbooks made outside their namespaces is deleted
		// when the run ends: not needed on a local server kbook started,
		// which is gone then (listing every resource costs seconds).
		if t.err == nil && t.parallel && !t.keep && !t.throwaway() {
			begin := time.Now()
			t.before, t.err = t.snapshotAll(t.ctx)
			t.opts.Log().Infof("  the cluster's objects listed in %s", since(begin))
		}
		if t.err == nil {
			t.watchBroken()
		}
	})
	return t.cluster, t.err
}

// throwaway reports whether the cluster is a local server this target
// started, stopped (and its data deleted) when the target closes.
func (t *Target) throwaway() bool { return !t.reused && t.opts.Backend == cluster.Local }

// watchBroken closes broken when the cluster is lost (its etcd or
// kube-apiserver exits: cluster.Lost) or its k0rdent plane is down (the
// supervisor gave up restarting a controller: plane.Plane.Down), whichever
// comes first; why then says what, the server first.
func (t *Target) watchBroken() {
	var (
		chans []<-chan struct{}
		whys  []func() error
	)
	if lost, why := cluster.Lost(t.cluster); lost != nil {
		chans, whys = append(chans, lost), append(whys, why)
	}
	if p := cluster.PlaneOf(t.cluster); p != nil {
		if down, why := p.Down(); down != nil {
			chans, whys = append(chans, down), append(whys, why)
		}
	}
	if len(chans) == 0 {
		return
	}
	t.mu.Lock()
	t.why = func() error {
		for _, why := range whys {
			if err := why(); err != nil {
				return err
			}
		}
		return nil
	}
	t.mu.Unlock()
	var once sync.Once
	for _, ch := range chans {
		go func() {
			<-ch
			once.Do(func() { close(t.broken) })
		}()
	}
}

// Broken implements runner.Breakable: it is closed when the local API
// server's etcd or kube-apiserver exits under the runbooks, or when the
// supervisor of the local k0rdent plane gives up on a controller.
func (t *Target) Broken() <-chan struct{} { return t.broken }

// BrokenErr implements runner.Breakable: it looks at the server's
// processes, so it says a process is gone even before Broken closes.
func (t *Target) BrokenErr() error {
	t.mu.Lock()
	why := t.why
	t.mu.Unlock()
	if why == nil {
		return nil
	}
	return why()
}

// lost is why the cluster is gone, or nil.
func (t *Target) lost() error { return t.BrokenErr() }

// Start implements runner.Starter: it starts the cluster (building the
// local backend's binaries first if need be), so that the wait is not
// counted in the first runbook's duration and time limit.
func (t *Target) Start(context.Context) error {
	_, err := t.Cluster()
	return err
}

// Started reports whether the cluster was started.
func (t *Target) Started() bool { return t.cluster != nil }

func (t *Target) snapshotAll(ctx context.Context) (map[types.UID]object, error) {
	l, err := newLister(t.cluster.RESTConfig(), cluster.EtcdURL(t.cluster))
	if err != nil {
		return nil, err
	}
	return l.snapshot(ctx, "")
}

// Conditions implements runner.Target.
func (t *Target) Conditions() map[string]runner.Condition {
	backend := func(name string) runner.Condition {
		return func(string) (bool, string) {
			if t.opts.Backend != name {
				return false, fmt.Sprintf("this run uses the %s backend (kbook run --cluster %s)", t.opts.Backend, name)
			}
			return t.available()
		}
	}
	return map[string]runner.Condition{
		"cluster":          func(string) (bool, string) { return t.available() },
		cluster.Local:      backend(cluster.Local),
		cluster.Kind:       backend(cluster.Kind),
		cluster.Kubeconfig: backend(cluster.Kubeconfig),
		"k0rdent": func(string) (bool, string) {
			ok, why := t.served(k0rdent.Resource("clustertemplates"))
			if !ok {
				why += " (install k0rdent, or its CRDs with --crds)"
			}
			return ok, why
		},
		"api:": t.served,
		"nodes": func(string) (bool, string) {
			if ok, why := t.available(); !ok {
				return false, why
			}
			if t.opts.Backend == cluster.Local {
				return false, "the local backend runs no kubelet, so no pod ever runs (kbook run --cluster kind)"
			}
			c, err := t.Cluster()
			if err != nil {
				return true, "" // Prepare fails the runbook with err
			}
			return cluster.NodesReady(t.ctx, c)
		},
		"kcm": func(string) (bool, string) {
			if ok, why := t.available(); !ok {
				return false, why
			}
			c, err := t.Cluster()
			if err != nil {
				return true, "" // not a reason to skip: Prepare fails the runbook with err
			}
			return cluster.KcmRunning(t.ctx, c)
		},
	}
}

// available tells whether the backend can run here at all: kind needs a
// container runtime that answers. Without one, runbooks that need the
// cluster are skipped with the runtime's own reason, never failed or passed.
func (t *Target) available() (bool, string) {
	if t.opts.Backend == cluster.Kind && !t.reused {
		if _, err := cluster.DetectRuntime(); err != nil {
			return false, "kind: " + err.Error()
		}
	}
	return true, ""
}

// served is true when the cluster serves a resource, named RESOURCE.GROUP
// ("clusters.cluster.x-k8s.io") or RESOURCE for the core group ("pods").
//
// A cluster that kbook was asked to start and could not is a failure, not
// a reason to skip: served then holds, and Prepare fails the runbook with
// the start error (a run whose k0rdent plane did not come up must not pass
// as "all skipped"). Only a backend that cannot run here at all skips.
func (t *Target) served(name string) (bool, string) {
	if ok, why := t.available(); !ok {
		return false, why
	}
	c, err := t.Cluster()
	if err != nil {
		return true, ""
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cluster.FastConfig(c.RESTConfig()))
	if err != nil {
		return false, err.Error()
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil && len(lists) == 0 {
		return false, fmt.Sprintf("discovery: %v", err)
	}
	res, group, _ := strings.Cut(name, ".")
	for _, l := range lists {
		g, _, found := strings.Cut(l.GroupVersion, "/")
		if !found {
			g = "" // the core group: "v1"
		}
		if g != group {
			continue
		}
		for _, r := range l.APIResources {
			if r.Name == res {
				return true, ""
			}
		}
	}
	return false, "the cluster does not serve " + name
}

// Prepare implements runner.Target: it gives the runbook its own namespace,
// a kubeconfig whose context defaults to it, and a client for kbook's
// Kubernetes commands.
//
// A runbook that does not need a cluster (see Needs) gets nothing and
// does not wait for one to start.
func (t *Target) Prepare(ctx context.Context, rb *runbook.Runbook, env *testscript.Env) (runner.Session, error) {
	if !Needs(rb) {
		return nil, nil
	}
	c, err := t.Cluster()
	if err != nil {
		return nil, err
	}
	cfg := cluster.FastConfig(c.RESTConfig())
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	if len(rb.Meta.CRDs) > 0 {
		var paths []string
		for _, p := range rb.Meta.CRDs {
			paths = append(paths, filepath.Join(filepath.Dir(rb.Path), p))
		}
		if err := cluster.InstallCRDs(ctx, cfg, paths, t.opts.Log()); err != nil {
			return nil, fmt.Errorf("front matter crds: %w", err)
		}
	}
	s := &Session{t: t, cluster: c, cs: cs, namespace: namespaceFor(rb.Path), path: rb.Path}
	if t.shared() {
		progs := programsOf(rb)
		s.attr.add(s.namespace, progs)
		t.mu.Lock()
		t.runAttr.add(s.namespace, progs)
		t.mu.Unlock()
	}
	alone, _ := env.Values[runner.AloneKey{}].(string)
	switch {
	case alone != "" && !t.shared() && !t.keep:
		// It runs alone on a cluster kbook made: put back as it was
		// after it (restore.go).
		if s.lister, err = newLister(cfg, cluster.EtcdURL(c)); err != nil {
			return nil, err
		}
		begin := time.Now()
		if s.saved, err = s.lister.wholeSnapshot(ctx); err != nil {
			return nil, fmt.Errorf("snapshot cluster objects: %w", err)
		}
		s.before, s.saveTook = objectsOf(s.saved), time.Since(begin)
		t.opts.Log().Infof("  %s: the cluster's %d objects saved in %s, to restore after it", rb.Path, len(s.saved), since(begin))
	case !t.parallel && !t.keep:
		if s.lister, err = newLister(cfg, cluster.EtcdURL(c)); err != nil {
			return nil, err
		}
		begin := time.Now()
		if s.before, err = s.lister.snapshot(ctx, ""); err != nil {
			return nil, fmt.Errorf("snapshot cluster objects: %w", err)
		}
		t.opts.Log().Infof("  %s: the cluster's objects listed in %s", rb.Path, since(begin))
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.namespace, Labels: map[string]string{
		"app.kubernetes.io/managed-by": "kbook",
		k0rdent.RunbookLabel:           labelValue(rb.Path),
	}}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("create namespace %s: %w", s.namespace, err)
	}
	t.mu.Lock()
	t.runbookN[s.namespace] = true
	t.mu.Unlock()

	kc, err := c.Kubeconfig()
	if err != nil {
		return nil, err
	}
	kcPath := filepath.Join(env.WorkDir, ".kube", "config")
	if err := writeKubeconfig(kc, s.namespace, kcPath); err != nil {
		return nil, err
	}
	s.secrets = kubeconfigSecrets(kc)
	if s.client, err = kubecmd.NewClient(ctx, cfg, s.namespace); err != nil {
		return nil, err
	}
	s.client.Progress, _ = env.Values[runner.ProgressKey{}].(func(string))
	env.Values[kubecmd.ClientKey{}] = s.client
	// Where the machine has no kubectl, the one built with the local
	// backend's binaries serves.
	if dir := cluster.BinDir(c); dir != "" {
		if _, err := exec.LookPath("kubectl"); err != nil {
			if _, err := os.Stat(filepath.Join(dir, "kubectl")); err == nil {
				env.Setenv("PATH", env.Getenv("PATH")+string(os.PathListSeparator)+dir)
			}
		}
	}
	for k, v := range map[string]string{
		"KUBECONFIG":       kcPath,
		"NAMESPACE":        s.namespace,
		"KBOOK_CLUSTER":    c.Backend(),
		"KUBECACHEDIR":     filepath.Join(env.WorkDir, ".kube", "cache"),
		"HELM_CACHE_HOME":  filepath.Join(env.WorkDir, ".helm", "cache"),
		"HELM_CONFIG_HOME": filepath.Join(env.WorkDir, ".helm", "config"),
		"HELM_DATA_HOME":   filepath.Join(env.WorkDir, ".helm", "data"),
	} {
		env.Setenv(k, v)
	}
	if c.Backend() == cluster.Kind {
		env.Setenv(cluster.EnvKindCluster, c.Name())
	}
	return s, nil
}

// kubeconfigSecrets lists the credentials in a kubeconfig: client keys,
// tokens, passwords.
func kubeconfigSecrets(kc []byte) []string {
	cfg, err := clientcmd.Load(kc)
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range cfg.AuthInfos {
		for _, v := range []string{string(a.ClientKeyData), a.Token, a.Password} {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// writeKubeconfig writes kc with its current context's namespace set.
func writeKubeconfig(kc []byte, namespace, path string) error {
	cfg, err := clientcmd.Load(kc)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	if ctx, ok := cfg.Contexts[cfg.CurrentContext]; ok {
		ctx.Namespace = namespace
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return clientcmd.WriteToFile(*cfg, path)
}

var nonLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// namespaceFor names a runbook's namespace: kb-<runbook>-<random>.
func namespaceFor(path string) string {
	base := strings.ToLower(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	base = strings.Trim(nonLabel.ReplaceAllString(base, "-"), "-")
	if len(base) > 40 {
		base = strings.TrimRight(base[:40], "-")
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return "kb-" + base + "-" + hex.EncodeToString(b)
}

func labelValue(path string) string {
	v := nonLabel.ReplaceAllString(strings.ToLower(filepath.ToSlash(path)), "-")
	v = strings.Trim(v, "-.")
	if len(v) > 63 {
		v = strings.Trim(v[len(v)-63:], "-.")
	}
	return v
}

// Close ends the run: in parallel runs it deletes what runbooks created
// outside their namespaces, then stops the cluster if kbook started it.
func (t *Target) Close(ctx context.Context) error {
	if t.cluster == nil {
		return nil
	}
	var errs []string
	if t.before != nil && !t.keep {
		l, err := newLister(t.cluster.RESTConfig(), cluster.EtcdURL(t.cluster))
		if err == nil {
			var after map[types.UID]object
			if after, err = l.snapshot(ctx, ""); err == nil {
				t.mu.Lock()
				skip, attr := t.runbookN, t.runAttr
				t.mu.Unlock()
				var own []object
				if own, err = t.ownObjects(ctx, &attr, created(t.before, after, skip), ""); err == nil {
					err = t.delete(ctx, l, own)
				}
			}
		}
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	if !t.reused { // a cluster handed in belongs to its owner
		begin := time.Now()
		if err := t.cluster.Stop(ctx); err != nil {
			errs = append(errs, err.Error())
		}
		t.opts.Log().Infof("cluster stopped in %s", since(begin))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// delete removes objects in order. On the local backend nothing reconciles
// finalizers, so kbook clears them (and finalizes namespaces itself, as
// kube-controller-manager's namespace controller would).
func (t *Target) delete(ctx context.Context, l *lister, objs []object) error {
	var errs []string
	for _, o := range objs {
		if o.GVR.Resource == "namespaces" && o.GVR.Group == "" {
			if err := t.deleteNamespace(ctx, l, o.Name, nil); err != nil {
				errs = append(errs, err.Error())
			}
			continue
		}
		if err := t.deleteObject(ctx, l, o); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("cleanup: %s", strings.Join(errs, "; "))
	}
	return nil
}

func (t *Target) deleteObject(ctx context.Context, l *lister, o object) error {
	r := l.meta.Resource(o.GVR)
	var ri interface {
		Delete(context.Context, string, metav1.DeleteOptions, ...string) error
		Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (*metav1.PartialObjectMetadata, error)
	} = r
	if o.Namespace != "" {
		ri = r.Namespace(o.Namespace)
	}
	if t.opts.Backend == cluster.Local && o.GVR == crdGVR {
		if err := t.deleteCRs(ctx, l, o.Name); err != nil {
			return fmt.Errorf("delete the custom resources of %s: %w", o, err)
		}
	}
	if t.opts.Backend == cluster.Local {
		_, err := ri.Patch(ctx, o.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("clear finalizers of %s: %w", o, err)
		}
	}
	if err := ri.Delete(ctx, o.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s: %w", o, err)
	}
	return nil
}

// crdGoneTimeout bounds the wait for the CRDs a runbook made to be gone.
const crdGoneTimeout = time.Minute

// awaitCRDsGone waits until the CRDs among objs (deleted already) are
// gone. The API server deletes a CRD only after its custom resources
// (its customresourcecleanup finalizer), and the next runbook may install
// the same CRD: while the old one is terminating, its apply "configures"
// it, and then it disappears under the runbook (proprietary-provider.md
// once failed so in the soak, its InventoryIdentity kind not found).
// deleteObject has cleared the custom resources' finalizers first on the
// local backend.
func (t *Target) awaitCRDsGone(ctx context.Context, l *lister, objs []object) error {
	var names []string
	for _, o := range objs {
		if o.GVR.Group == crdGVR.Group && o.GVR.Resource == crdGVR.Resource {
			names = append(names, o.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	dc, err := dynamic.NewForConfig(cluster.FastConfig(t.cluster.RESTConfig()))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, crdGoneTimeout)
	defer cancel()
	for _, name := range names {
		err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			_, err := dc.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				return true, nil
			case err != nil:
				return false, nil
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s, which the runbook made, is still being deleted after %s (its custom resources keep it): the next runbook would see it vanish", name, crdGoneTimeout)
		}
	}
	return nil
}

// deleteCRs clears the finalizers of the custom resources of the CRD
// name and deletes them, all of them (they go with the CRD), before the
// CRD is deleted: once it is terminating, the API server refuses updates
// of its resources, and a finalizer whose controller is gone (and an
// owned resource, which the cleanup leaves to a garbage collector the
// local server lacks) would keep it terminating for good.
func (t *Target) deleteCRs(ctx context.Context, l *lister, name string) error {
	dc, err := dynamic.NewForConfig(cluster.FastConfig(t.cluster.RESTConfig()))
	if err != nil {
		return err
	}
	crd, err := dc.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		if served, _ := vm["served"].(bool); !served {
			continue
		}
		version, _ := vm["name"].(string)
		r := l.meta.Resource(schema.GroupVersionResource{Group: group, Version: version, Resource: plural})
		list, err := r.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, cr := range list.Items {
			ri := r.Namespace(cr.Namespace)
			if len(cr.Finalizers) > 0 {
				if _, err := ri.Patch(ctx, cr.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
			if err := ri.Delete(ctx, cr.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
		return nil
	}
	return nil
}

// deleteNamespace deletes a namespace; on the local backend it first
// deletes everything in it and then finalizes it. listed, when not nil, is
// a snapshot of every namespace taken after the runbook ended: the
// namespace's objects are taken from it instead of listing them again.
func (t *Target) deleteNamespace(ctx context.Context, l *lister, name string, listed map[types.UID]object) error {
	cs, err := kubernetes.NewForConfig(t.cluster.RESTConfig())
	if err != nil {
		return err
	}
	if t.opts.Backend == cluster.Local {
		objs := map[types.UID]object{}
		for uid, o := range listed {
			if o.Namespace == name {
				objs[uid] = o
			}
		}
		if listed == nil {
			if objs, err = l.snapshot(ctx, name); err != nil {
				return fmt.Errorf("namespace %s: %w", name, err)
			}
		}
		for _, o := range created(nil, objs, nil) {
			if err := t.deleteObject(ctx, l, o); err != nil {
				return err
			}
		}
	}
	err = cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete namespace %s: %w", name, err)
	}
	if t.opts.Backend != cluster.Local {
		return nil
	}
	ns, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("finalize namespace %s: %w", name, err)
	}
	ns.Spec.Finalizers = nil
	if _, err := cs.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("finalize namespace %s: %w", name, err)
	}
	return nil
}

// Session is one runbook's share of the cluster.
type Session struct {
	t         *Target
	cluster   cluster.Cluster
	cs        kubernetes.Interface
	namespace string
	path      string      // the runbook's
	attr      attribution // on a shared cluster: what is the runbook's
	client    *kubecmd.Client
	lister    *lister
	before    map[types.UID]object
	secrets   []string
	// saved is the whole objects before a page that runs alone, on a
	// cluster kbook made (restore.go), saveTook what listing them took;
	// restored is what Close put back.
	saved    map[types.UID]saved
	saveTook time.Duration
	restored *report.Restored
}

// Restored implements runner.Restorer: what Close put back after a page
// that ran alone; nil for other runbooks.
func (s *Session) Restored() *report.Restored { return s.restored }

// Secrets implements runner.SecretHolder: the credentials of the
// runbook's kubeconfig.
func (s *Session) Secrets() []string { return s.secrets }

// Namespace is the runbook's namespace.
func (s *Session) Namespace() string { return s.namespace }

// Diagnose implements runner.Session.
func (s *Session) Diagnose(ctx context.Context) string {
	if err := s.t.lost(); err != nil {
		var down *supervisor.DownError
		if errors.As(err, &down) && down.Tail != "" {
			return err.Error() + "\nthe last lines of its log:\n    " + strings.ReplaceAll(down.Tail, "\n", "\n    ")
		}
		return err.Error() // nothing to ask a server that is gone
	}
	var refs []kubecmd.ObjectRef
	if s.lister != nil && s.before != nil {
		if after, err := s.lister.snapshot(ctx, ""); err == nil {
			for _, o := range created(s.before, after, nil) {
				refs = append(refs, kubecmd.ObjectRef{APIVersion: o.GVR.GroupVersion().String(), Kind: o.Kind, Namespace: o.Namespace, Name: o.Name})
			}
		}
	}
	if s.client == nil {
		return ""
	}
	out := kubecmd.Diagnose(ctx, s.client, refs)
	if p := cluster.PlaneOf(s.cluster); p != nil {
		words := []string{s.namespace}
		for _, r := range refs {
			words = append(words, r.Name)
		}
		if lines := p.LogLines(words, 15); lines != "" {
			out += "\nk0rdent controllers' log lines about these objects:\n" + lines
		}
		if rs := p.Restarts(); len(rs) > 0 {
			out += "\nk0rdent controllers that exited during this run (logs in " + p.LogDir() + "):\n"
			for _, r := range rs {
				out += "  " + r.String() + "\n"
				if r.Tail != "" {
					out += "    " + strings.ReplaceAll(r.LastLines(5), "\n", "\n    ") + "\n"
				}
			}
		}
	}
	return out
}

// Close implements runner.Session: unless kept, it deletes what the
// runbook created outside its namespace (sequential runs, and a page
// that ran alone) and the namespace itself; after a page that ran alone
// on a cluster kbook made, it puts back what the page changed or deleted
// (restore.go).
func (s *Session) Close(ctx context.Context) error {
	if s.t.lost() != nil {
		return nil // the cluster and what the runbook made in it are gone
	}
	if s.t.keep {
		s.t.opts.Log().Infof("kept namespace %s", s.namespace)
		return nil
	}
	l := s.lister
	if l == nil {
		var err error
		if l, err = newLister(s.cluster.RESTConfig(), cluster.EtcdURL(s.cluster)); err != nil {
			return err
		}
	}
	var (
		errs  []string
		after map[types.UID]object
		made  []object // what the runbook made outside its namespace
	)
	begin := time.Now()
	defer func() {
		s.t.opts.Log().Infof("  namespace %s and what the runbook made cleaned up in %s", s.namespace, since(begin))
	}()
	if s.saved != nil {
		s.restored = &report.Restored{Duration: s.saveTook}
	}
	if s.before != nil {
		var err error
		if after, err = l.snapshot(ctx, ""); err != nil {
			errs = append(errs, err.Error())
		} else {
			made = created(s.before, after, map[string]bool{s.namespace: true})
			if s.saved != nil {
				// One the page deleted and made again is put back,
				// not deleted.
				made = notReplaced(made, planRestore(s.saved, after).replaced)
			}
			if made, err = s.t.ownObjects(ctx, &s.attr, made, s.path); err != nil {
				errs = append(errs, err.Error())
			} else if err := s.t.delete(ctx, l, made); err != nil {
				errs = append(errs, err.Error())
			} else if s.restored != nil {
				for _, o := range made {
					s.restored.Deleted.Add(o.String())
				}
			}
		}
	}
	if err := s.t.deleteNamespace(ctx, l, s.namespace, after); err != nil {
		errs = append(errs, err.Error())
	}
	if err := s.t.awaitCRDsGone(ctx, l, made); err != nil {
		errs = append(errs, err.Error())
	}
	if s.restored != nil {
		if after == nil {
			s.restored.Failed = append(s.restored.Failed, "nothing: the cluster's objects could not be listed after the page")
		} else {
			begin := time.Now()
			s.restore(ctx, l, after, s.restored)
			s.restored.Duration += time.Since(begin)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Millisecond) }
