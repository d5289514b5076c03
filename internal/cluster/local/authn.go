package local

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/tinyca"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// certAuthn is envtest's client-certificate authentication (its
// controlplane.CertAuthn, which envtest does not export) with one thing
// more: envtest calls Start as the last step of preparing kube-apiserver
// (controlplane.APIServer.prepare: ports, serving certificate, flags),
// just before it runs the process and waits for /healthz, so Prepared
// closing is the point from which the server's fields (its port and CA)
// are set and may be read while envtest still waits.
type certAuthn struct {
	ca       *tinyca.CA
	dir      string
	prepared chan struct{}
	once     sync.Once
}

var _ envtest.Authn = (*certAuthn)(nil)

func newCertAuthn() (*certAuthn, error) {
	ca, err := tinyca.New("kbook local API server client CA", 7*24*time.Hour)
	if err != nil {
		return nil, err
	}
	return &certAuthn{ca: ca, prepared: make(chan struct{})}, nil
}

func (a *certAuthn) caFile() string { return filepath.Join(a.dir, "client-cert-auth-ca.crt") }

// Configure has kube-apiserver trust the CA for client certificates.
func (a *certAuthn) Configure(workDir string, args *envtest.Arguments) error {
	a.dir = workDir
	args.Set("client-ca-file", a.caFile())
	return nil
}

// Start writes the CA file and closes Prepared.
func (a *certAuthn) Start() error {
	if a.dir == "" {
		return fmt.Errorf("client certificate authentication: Start before Configure")
	}
	if err := os.WriteFile(a.caFile(), a.ca.PEM, 0o640); err != nil {
		return fmt.Errorf("client certificate authentication: %w", err)
	}
	a.once.Do(func() { close(a.prepared) })
	return nil
}

// Prepared is closed once envtest has prepared kube-apiserver.
func (a *certAuthn) Prepared() <-chan struct{} { return a.prepared }

// AddUser issues a client certificate for the user (common name) and its
// groups (organisations), as kube-apiserver reads them.
func (a *certAuthn) AddUser(user envtest.User, base *rest.Config) (*rest.Config, error) {
	crt, key, err := a.ca.Issue(x509.Certificate{
		Subject:     pkix.Name{CommonName: user.Name, Organization: user.Groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return nil, fmt.Errorf("user %s: %w", user.Name, err)
	}
	cfg := rest.CopyConfig(base)
	cfg.CertData, cfg.KeyData = crt, key
	return cfg, nil
}

// Stop: nothing runs (the CA file goes with the certificate directory).
func (a *certAuthn) Stop() error { return nil }
