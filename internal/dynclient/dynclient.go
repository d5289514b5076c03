package dynclient

import (
	"fmt"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// Client reaches a cluster's objects by resource and maps kinds to
// resources.
type Client struct {
	Dynamic dynamic.Interface
	// Mapper maps kinds to resources from the server's discovery, read on
	// first use; Reset reads it again.
	Mapper *restmapper.DeferredDiscoveryRESTMapper
	// Discovery is the cached discovery Mapper reads (short names too,
	// with restmapper.NewShortcutExpander).
	Discovery discovery.CachedDiscoveryInterface
}

// New returns a client for cfg; it does not contact the server.
func New(cfg *rest.Config) (*Client, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	cached := memory.NewMemCacheClient(dc)
	return &Client{Dynamic: dyn, Mapper: restmapper.NewDeferredDiscoveryRESTMapper(cached), Discovery: cached}, nil
}
