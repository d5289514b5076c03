package kubecmd

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ServesResource reports whether the server serves the resource type arg,
// read as kubectl reads it (plural, singular, short name or kind, perhaps
// with its group), after fresh discovery when the cached one has it not
// (CRDs installed during the runbook). An error is a question the server
// did not answer, not an answer.
func (c *Client) ServesResource(arg string) (bool, error) {
	if err := c.ready(); err != nil {
		return false, err
	}
	_, err := c.mappingFor(arg)
	return served(err)
}

// ServesKind reports whether the server serves the kind of apiVersion, as
// a manifest writes them, after fresh discovery when the cached one has
// it not.
func (c *Client) ServesKind(apiVersion, kind string) (bool, error) {
	if err := c.ready(); err != nil {
		return false, err
	}
	_, err := c.mappingForKind(apiVersion, kind)
	return served(err)
}

func served(err error) (bool, error) {
	switch {
	case err == nil:
		return true, nil
	case meta.IsNoMatchError(err) || errors.Is(err, errUnknownResource):
		return false, nil
	}
	return false, err
}

// HasNamespace reports whether the namespace exists.
func (c *Client) HasNamespace(name string) (bool, error) {
	if err := c.ready(); err != nil {
		return false, err
	}
	_, err := c.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Get(c.ctx(), name, metav1.GetOptions{})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	}
	return false, err
}

// HasNodes reports whether the cluster has a node (kbook's local backend,
// an API server alone, has none).
func (c *Client) HasNodes() (bool, error) {
	if err := c.ready(); err != nil {
		return false, err
	}
	l, err := c.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}).List(c.ctx(), metav1.ListOptions{Limit: 1})
	if err != nil {
		return false, err
	}
	return len(l.Items) > 0, nil
}
