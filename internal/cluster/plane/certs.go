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

	ca *tinyca.CA
}

// caValidity is how long a plane's webhook CA is valid. A plane restored
// from a snapshot reuses the CA of the plane the snapshot was made of
// (Wiring) while at least caMinLeft of it is left: the restored CRDs
// already trust it. (A plane's serving certificate is as long as its CA.)
const (
	caValidity = 30 * 24 * time.Hour
	caMinLeft  = 24 * time.Hour
)

// NewCerts writes a fresh CA and serving certificate into dir (mode 0700).
func NewCerts(dir string) (*Certs, error) {
	ca, err := tinyca.New("kbook local k0rdent webhook CA", caValidity)
	if err != nil {
		return nil, fmt.Errorf("webhook certificates: %w", err)
	}
	return newCertsFrom(dir, ca)
}

// newCertsFrom writes ca and a new serving certificate it issues into dir.
func newCertsFrom(dir string, ca *tinyca.CA) (*Certs, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
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
	return &Certs{Dir: dir, CA: ca.PEM, ca: ca}, nil
}

// Wiring is what a plane's CRDs name of its run: the ports its
// controllers serve conversion (and admission) webhooks on and the CA
// their caBundle holds, with its key. A snapshot of a bootstrapped plane
// keeps it (Plane.Wiring; it holds a private key: keep it mode 0600), so
// that the plane restored from it can serve where the restored CRDs
// already point (Options.Wiring), and kube-apiserver has no CRD to
// rebuild before the controllers start.
type Wiring struct {
	// WebhookPorts are the controllers' webhook ports, by controller.
	WebhookPorts map[string]int `json:"webhookPorts"`
	// CACert and CAKey are the webhook CA, PEM-encoded.
	CACert []byte `json:"caCert"`
	CAKey  []byte `json:"caKey"`
}

// Wiring is the plane's wiring (nil for an API-only plane).
func (p *Plane) Wiring() (*Wiring, error) {
	if p.certs == nil {
		return nil, nil
	}
	key, err := p.certs.ca.KeyPEM()
	if err != nil {
		return nil, err
	}
	return &Wiring{WebhookPorts: p.ports.webhook, CACert: p.certs.CA, CAKey: key}, nil
}

// reuse checks that w can wire this run: the controllers with webhooks
// are names, each of their ports is free on 127.0.0.1 now (held, until
// release, so that the plane's other ports are picked beside them), and
// the CA is valid for caMinLeft more. It returns the CA and the held
// ports' release, or why w cannot be reused.
func (w *Wiring) reuse(names []string) (ca *tinyca.CA, release func(), why string) {
	release = func() {}
	if len(names) != len(w.WebhookPorts) {
		return nil, release, fmt.Sprintf("it has webhook ports for %d controllers, this release %d", len(w.WebhookPorts), len(names))
	}
	ca, err := tinyca.Load(w.CACert, w.CAKey)
	if err != nil {
		return nil, release, err.Error()
	}
	if left := time.Until(ca.NotAfter()); left < caMinLeft {
		return nil, release, fmt.Sprintf("its CA expires in %s", left.Round(time.Minute))
	}
	var held []net.Listener
	release = func() {
		for _, l := range held {
			l.Close()
		}
	}
	for _, name := range names {
		port, ok := w.WebhookPorts[name]
		if !ok {
			return nil, release, "it has no webhook port for " + name
		}
		if port < planePortLow || port >= planePortHigh {
			return nil, release, fmt.Sprintf("%s's port %d is outside %d-%d", name, port, planePortLow, planePortHigh-1)
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			return nil, release, fmt.Sprintf("%s's port %d is taken", name, port)
		}
		held = append(held, l)
	}
	return ca, release, ""
}
