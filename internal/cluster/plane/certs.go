package plane

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/k0rdent/kbook/internal/tinyca"
)

// Certs is the serving certificate the controllers' webhook servers share
// (for 127.0.0.1 and localhost) and the CA the API server trusts it by.
type Certs struct {
	// Dir holds tls.crt and tls.key, as controller-runtime's
	// --webhook-cert-dir wants them.
	Dir string
	// CA is the PEM CA certificate, for caBundle fields.
	CA []byte
}

// NewCerts writes a fresh CA and serving certificate into dir (mode 0700):
// valid for a day, never reused across runs.
func NewCerts(dir string) (*Certs, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("webhook certificates: %w", err)
	}
	ca, err := tinyca.New("kbook local k0rdent webhook CA", 24*time.Hour)
	if err != nil {
		return nil, fmt.Errorf("webhook certificates: %w", err)
	}
	crt, key, err := ca.Issue(x509.Certificate{
		Subject:     pkix.Name{CommonName: "127.0.0.1"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:    []string{"localhost"},
	})
	if err != nil {
		return nil, fmt.Errorf("webhook certificates: %w", err)
	}
	files := map[string][]byte{"tls.crt": crt, "tls.key": key, "ca.crt": ca.PEM}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, fmt.Errorf("webhook certificates: %w", err)
		}
	}
	return &Certs{Dir: dir, CA: ca.PEM}, nil
}
