package kcminstall

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
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

	"github.com/k0rdent/kbook/internal/tinyca"
)

// Registry is an in-memory OCI registry listening on 127.0.0.1 (plain
// HTTP, for this host: Helm, pushes) and, optionally, on an address a
// cluster's pods reach this host at (a kind network's gateway), on the same
// port where that port is free there too, over TLS with a certificate of
// its own CA: as an air-gapped k0rdent's registry is reached, kcm given the
// CA (its registry-cert-secret), so that Flux and the Cluster API operator
// verify it.
type Registry struct {
	// Host is host:port on 127.0.0.1.
	Host string
	// Cluster is host:port on the cluster-facing address ("" without one).
	Cluster string
	// CA is the PEM certificate of the CA that signed the cluster-facing
	// listener's (nil without one).
	CA []byte

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
		// Clients that do not trust the CA are theirs to report.
		ErrorLog: log.New(io.Discard, "", 0),
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("chart registry: %w", err)
	}
	r.lns = append(r.lns, ln)
	r.Host = ln.Addr().String()
	if clusterIP != "" {
		cert, ca, err := servingCert(clusterIP)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("chart registry: %w", err)
		}
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		cl, err := net.Listen("tcp", net.JoinHostPort(clusterIP, port))
		if err != nil {
			cl, err = net.Listen("tcp", net.JoinHostPort(clusterIP, "0"))
		}
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("chart registry on the cluster's network (%s): %w", clusterIP, err)
		}
		r.Cluster, r.CA = cl.Addr().String(), ca
		r.lns = append(r.lns, tls.NewListener(cl, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}))
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

// servingCert is a certificate for ip, from a CA made for it (valid for a
// week: the registry lives as long as one kbook process), and the CA's
// PEM.
func servingCert(ip string) (tls.Certificate, []byte, error) {
	addr := net.ParseIP(ip)
	if addr == nil {
		return tls.Certificate{}, nil, fmt.Errorf("the cluster's address %q is not an IP address", ip)
	}
	ca, err := tinyca.New("kbook registry CA", 7*24*time.Hour)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	certPEM, keyPEM, err := ca.Issue(x509.Certificate{
		Subject:     pkix.Name{CommonName: ip},
		IPAddresses: []net.IP{addr},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	return cert, ca.PEM, err
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
