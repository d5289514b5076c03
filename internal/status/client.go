package status

import (
	"context"
	"errors"
	"fmt"

	"github.com/k0rdent/kbook/internal/cluster/kubeconfig"
	"github.com/k0rdent/kbook/internal/dynclient"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Client reads (and, for kbook upgrade apply, patches) the objects of a
// management cluster.
type Client struct {
	Config *rest.Config
	// Namespace is -n, else the context's namespace, else "default".
	Namespace string
	// Context names the kubeconfig context used, for messages.
	Context string

	dyn    dynamic.Interface
	mapper meta.RESTMapper
}

// Connect loads the kubeconfig as kubectl does (package
// cluster/kubeconfig: --kubeconfig, else $KUBECONFIG, else ~/.kube/config;
// --context, else the current context) and returns a client; namespace
// overrides the context's namespace. It does not contact the server.
func Connect(path, kubeContext, namespace string) (*Client, error) {
	l, err := kubeconfig.Load(path, kubeContext)
	if err != nil {
		return nil, err
	}
	if namespace == "" {
		namespace = l.Namespace
	}
	return NewClient(l.Config, namespace, l.Context)
}

// NewClient returns a client for cfg with a default namespace.
func NewClient(cfg *rest.Config, namespace, contextName string) (*Client, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	dc, err := dynclient.New(cfg)
	if err != nil {
		return nil, err
	}
	if namespace == "" {
		namespace = "default"
	}
	return &Client{Config: cfg, Namespace: namespace, Context: contextName, dyn: dc.Dynamic, mapper: dc.Mapper}, nil
}

// ErrNotServed is returned for kinds the API server does not serve (the
// CRD is not installed).
var ErrNotServed = errors.New("not served")

// resource maps a group and kind to the resource of its preferred version.
func (c *Client) resource(group, kind string) (schema.GroupVersionResource, bool, error) {
	m, err := c.mapper.RESTMapping(schema.GroupKind{Group: group, Kind: kind})
	if err != nil {
		if meta.IsNoMatchError(err) {
			return schema.GroupVersionResource{}, false, fmt.Errorf("%s.%s: %w", kind, group, ErrNotServed)
		}
		return schema.GroupVersionResource{}, false, err
	}
	return m.Resource, m.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// Get returns an object by group, kind, namespace and name. A missing
// object is (nil, nil).
func (c *Client) Get(ctx context.Context, group, kind, namespace, name string) (*unstructured.Unstructured, error) {
	ri, err := c.Resource(group, kind, namespace)
	if err != nil {
		return nil, err
	}
	u, err := ri.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return u, err
}

// List returns the objects of a kind in a namespace matching a label
// selector (all when empty).
func (c *Client) List(ctx context.Context, group, kind, namespace, selector string) ([]unstructured.Unstructured, error) {
	ri, err := c.Resource(group, kind, namespace)
	if err != nil {
		return nil, err
	}
	l, err := ri.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// Events returns the events of one object, oldest first.
func (c *Client) Events(ctx context.Context, namespace, kind, name string) ([]unstructured.Unstructured, error) {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "events"}
	l, err := c.dyn.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.kind=" + kind + ",involvedObject.name=" + name,
	})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// Resource returns the dynamic interface for a group and kind in a
// namespace (ignored for cluster-scoped kinds).
func (c *Client) Resource(group, kind, namespace string) (dynamic.ResourceInterface, error) {
	gvr, namespaced, err := c.resource(group, kind)
	if err != nil {
		return nil, err
	}
	if namespaced {
		return c.dyn.Resource(gvr).Namespace(namespace), nil
	}
	return c.dyn.Resource(gvr), nil
}

// Writer returns the interface for writes of a kind in a namespace whose
// API warnings (kcm's webhook warnings) go to wh.
func (c *Client) Writer(group, kind, namespace string, wh rest.WarningHandler) (dynamic.ResourceInterface, error) {
	gvr, namespaced, err := c.resource(group, kind)
	if err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(c.Config)
	cfg.WarningHandler = wh
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	if namespaced {
		return dyn.Resource(gvr).Namespace(namespace), nil
	}
	return dyn.Resource(gvr), nil
}
