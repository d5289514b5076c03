package kcminstall

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Registry is an in-memory OCI registry listening on 127.0.0.1 (for this
// host: Helm, pushes) and, optionally, on an address a cluster's pods
// reach this host at (a kind network's gateway), on the same port where
// that port is free there too.
type Registry struct {
	// Host is host:port on 127.0.0.1.
	Host string
	// Cluster is host:port on the cluster-facing address ("" without one).
	Cluster string

	srv  *http.Server
	lns  []net.Listener
	wg   sync.WaitGroup
	once sync.Once
}

// StartRegistry starts a registry on 127.0.0.1 and, when clusterIP is not
// empty, on clusterIP. It serves until Close.
func StartRegistry(clusterIP string) (*Registry, error) {
	r := &Registry{srv: &http.Server{
		Handler:           registry.New(registry.Logger(log.New(io.Discard, "", 0))),
		ReadHeaderTimeout: 30 * time.Second,
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("chart registry: %w", err)
	}
	r.lns = append(r.lns, ln)
	r.Host = ln.Addr().String()
	if clusterIP != "" {
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		cl, err := net.Listen("tcp", net.JoinHostPort(clusterIP, port))
		if err != nil {
			cl, err = net.Listen("tcp", net.JoinHostPort(clusterIP, "0"))
		}
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("chart registry on the cluster's network (%s): %w", clusterIP, err)
		}
		r.lns = append(r.lns, cl)
		r.Cluster = cl.Addr().String()
	}
	for _, l := range r.lns {
		r.wg.Add(1)
		go func(l net.Listener) {
			defer r.wg.Done()
			_ = r.srv.Serve(l) // ErrServerClosed once Close is called
		}(l)
	}
	return r, nil
}

// Close stops the registry and forgets what it held.
func (r *Registry) Close() error {
	var err error
	r.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = r.srv.Shutdown(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = r.srv.Close()
		}
		r.wg.Wait()
	})
	return err
}
