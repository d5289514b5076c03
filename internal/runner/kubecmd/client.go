package kubecmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/k0rdent/kbook/internal/dynclient"
)

// Client is what a runbook's commands talk to. The runner creates one per
// runbook with [NewClient].
type Client struct {
	// Ctx is cancelled on Ctrl-C or when the runbook times out; every wait
	// honours it.
	Ctx context.Context
	// Config is the API server's configuration as given to NewClient.
	Config *rest.Config
	// Namespace is the runbook's own namespace: the default for namespaced
	// objects that name none.
	Namespace string
	// Progress, if set, is told while await, assert and error wait (see
	// waiter): their default limit is 30 s, long enough to look hung.
	Progress func(msg string)

	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
	// expander resolves short names (ns, crd, clustertmpl) on top of mapper.
	expander meta.RESTMapper

	mu       sync.Mutex
	touched  []ObjectRef
	seen     map[ObjectRef]bool
	warnings warningSink
}

// ClientKey is the testscript Env.Values key under which the runner stores
// the runbook's *Client.
type ClientKey struct{}

// ObjectRef names one Kubernetes object.
type ObjectRef struct {
	APIVersion, Kind, Namespace, Name string
}

// String returns the reference as kubectl prints it
// (clustertemplate.k0rdent.mirantis.com/foo), with the namespace, if any,
// in parentheses.
func (r ObjectRef) String() string {
	s := displayName(schema.FromAPIVersionAndKind(r.APIVersion, r.Kind).GroupKind(), r.Name)
	if r.Namespace != "" {
		s += " (namespace " + r.Namespace + ")"
	}
	return s
}

// Client-side rate limits and request timeout, used when the given config
// sets none: client-go's defaults (5 QPS) throttle discovery of a cluster
// with many CRDs and a poll loop noticeably.
const (
	defaultQPS            = 50
	defaultBurst          = 100
	defaultRequestTimeout = 30 * time.Second
)

// NewClient returns a client for cfg whose default namespace is namespace
// ("default" if empty). It does not contact the server: discovery happens
// on first use.
func NewClient(ctx context.Context, cfg *rest.Config, namespace string) (*Client, error) {
	if cfg == nil {
		return nil, errors.New("kube: new client: no rest config")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if namespace == "" {
		namespace = "default"
	}
	c := &Client{Ctx: ctx, Config: cfg, Namespace: namespace, seen: map[ObjectRef]bool{}}

	own := rest.CopyConfig(cfg)
	if own.QPS == 0 {
		own.QPS = defaultQPS
	}
	if own.Burst == 0 {
		own.Burst = defaultBurst
	}
	if own.Timeout == 0 {
		own.Timeout = defaultRequestTimeout
	}
	// API warnings (deprecated versions, unknown fields) go to the script
	// log instead of klog's stderr.
	own.WarningHandler = &c.warnings

	dc, err := dynclient.New(own)
	if err != nil {
		return nil, fmt.Errorf("kube: new client: %w", err)
	}
	c.dyn = dc.Dynamic
	c.mapper = dc.Mapper
	c.expander = restmapper.NewShortcutExpander(c.mapper, dc.Discovery, func(string) {})
	return c, nil
}

// Touched returns the objects the commands looked at in this runbook, in the
// order they were first seen.
func (c *Client) Touched() []ObjectRef {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ObjectRef(nil), c.touched...)
}

// touch records ref in the touched list.
func (c *Client) touch(ref ObjectRef) {
	if ref.Name == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[ObjectRef]bool{}
	}
	if !c.seen[ref] {
		c.seen[ref] = true
		c.touched = append(c.touched, ref)
	}
}

// ready reports whether c was made by NewClient.
func (c *Client) ready() error {
	if c.dyn == nil || c.mapper == nil {
		return errors.New("client not initialised: create it with kube.NewClient")
	}
	return nil
}

// ctx returns the client's context, never nil.
func (c *Client) ctx() context.Context {
	if c.Ctx == nil {
		return context.Background()
	}
	return c.Ctx
}

// errUnknownResource is returned, wrapped, for a resource argument the
// server has no type for.
var errUnknownResource = errors.New("unknown resource type")

type unknownResourceError struct{ resource string }

func (e unknownResourceError) Error() string {
	return fmt.Sprintf("the server doesn't have a resource type %q", e.resource)
}

func (e unknownResourceError) Unwrap() error { return errUnknownResource }

// mappingFor resolves a resource argument as kubectl does: a resource name
// (plural, singular or short), optionally qualified with its group
// (clustertemplates.k0rdent.mirantis.com) or version and group
// (clustertemplates.v1beta1.k0rdent.mirantis.com), or a kind (ClusterTemplate,
// ClusterTemplate.k0rdent.mirantis.com). When nothing matches it forgets the
// cached discovery and tries once more, so that CRDs created during the
// runbook are found.
func (c *Client) mappingFor(arg string) (*meta.RESTMapping, error) {
	m, err := c.mappingForOnce(arg)
	if err != nil && (meta.IsNoMatchError(err) || errors.Is(err, errUnknownResource)) {
		c.mapper.Reset()
		m, err = c.mappingForOnce(arg)
	}
	return m, err
}

// mappingForOnce is cli-runtime's Builder.mappingFor.
func (c *Client) mappingForOnce(arg string) (*meta.RESTMapping, error) {
	fullGVR, gr := schema.ParseResourceArg(arg)
	var gvk schema.GroupVersionKind
	if fullGVR != nil {
		gvk, _ = c.expander.KindFor(*fullGVR)
	}
	if gvk.Empty() {
		gvk, _ = c.expander.KindFor(gr.WithVersion(""))
	}
	if !gvk.Empty() {
		return c.expander.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	fullGVK, gk := schema.ParseKindArg(arg)
	if fullGVK == nil {
		v := gk.WithVersion("")
		fullGVK = &v
	}
	if !fullGVK.Empty() {
		if m, err := c.expander.RESTMapping(fullGVK.GroupKind(), fullGVK.Version); err == nil {
			return m, nil
		}
	}
	m, err := c.expander.RESTMapping(gk)
	if err != nil {
		if meta.IsNoMatchError(err) {
			return nil, unknownResourceError{resource: gr.Resource}
		}
		return nil, fmt.Errorf("resolve %q: %w", arg, err)
	}
	return m, nil
}

// mappingForKind resolves apiVersion and kind, as written in a manifest,
// retrying once with fresh discovery.
func (c *Client) mappingForKind(apiVersion, kind string) (*meta.RESTMapping, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("apiVersion %q: %w", apiVersion, err)
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: kind}
	m, err := c.mapper.RESTMapping(gk, gv.Version)
	if meta.IsNoMatchError(err) {
		c.mapper.Reset()
		m, err = c.mapper.RESTMapping(gk, gv.Version)
	}
	if err != nil {
		if meta.IsNoMatchError(err) {
			return nil, fmt.Errorf("%w (is its CustomResourceDefinition installed?)", err)
		}
		return nil, fmt.Errorf("resolve kind %s in %s: %w", kind, apiVersion, err)
	}
	return m, nil
}

// namespaced reports whether objects of m live in a namespace.
func namespaced(m *meta.RESTMapping) bool {
	return m.Scope != nil && m.Scope.Name() == meta.RESTScopeNameNamespace
}

// refFor returns the ObjectRef of name in namespace ns of mapping m.
func refFor(m *meta.RESTMapping, ns, name string) ObjectRef {
	if !namespaced(m) {
		ns = ""
	}
	return ObjectRef{APIVersion: m.GroupVersionKind.GroupVersion().String(), Kind: m.GroupVersionKind.Kind, Namespace: ns, Name: name}
}

// displayName formats an object as kubectl's name printer does:
// kind/name for the core group, kind.group/name otherwise, kind lower-cased.
func displayName(gk schema.GroupKind, name string) string {
	k := strings.ToLower(gk.Kind)
	if gk.Group != "" {
		k += "." + gk.Group
	}
	return k + "/" + name
}

// resourceClient returns the dynamic client for m in namespace ns (ignored
// for cluster-scoped resources).
func (c *Client) resourceClient(m *meta.RESTMapping, ns string) dynamic.ResourceInterface {
	r := c.dyn.Resource(m.Resource)
	if namespaced(m) {
		return r.Namespace(ns)
	}
	return r
}

// warningSink collects the API server's warnings, each once, until taken.
type warningSink struct {
	mu      sync.Mutex
	seen    map[string]bool
	pending []string
}

// HandleWarningHeader implements rest.WarningHandler.
func (w *warningSink) HandleWarningHeader(code int, _ string, text string) {
	if code != 299 || text == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	if w.seen[text] {
		return
	}
	w.seen[text] = true
	w.pending = append(w.pending, text)
}

// take returns the warnings received since the last call.
func (w *warningSink) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.pending
	w.pending = nil
	return p
}
