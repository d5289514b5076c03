package tinyca

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net"
	"testing"
	"time"
)

// TestIssue: what the CA issues verifies against its PEM for the usage it
// was issued for, within the CA's validity, with distinct serials.
func TestIssue(t *testing.T) {
	ca, err := New("test CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca.PEM) {
		t.Fatal("CA PEM does not parse")
	}
	serials := map[string]bool{}
	for _, tc := range []struct {
		name  string
		tmpl  x509.Certificate
		usage x509.ExtKeyUsage
		dns   string
	}{
		{"serving", x509.Certificate{Subject: pkix.Name{CommonName: "127.0.0.1"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"}}, x509.ExtKeyUsageServerAuth, "localhost"},
		{"client", x509.Certificate{Subject: pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, x509.ExtKeyUsageClientAuth, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crtPEM, keyPEM, err := ca.Issue(tc.tmpl)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tls.X509KeyPair(crtPEM, keyPEM); err != nil {
				t.Fatalf("certificate and key do not pair: %v", err)
			}
			block, _ := pem.Decode(crtPEM)
			crt, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := crt.Verify(x509.VerifyOptions{Roots: pool, DNSName: tc.dns, KeyUsages: []x509.ExtKeyUsage{tc.usage}}); err != nil {
				t.Errorf("does not verify against the CA: %v", err)
			}
			if crt.Subject.CommonName != tc.tmpl.Subject.CommonName || len(crt.Subject.Organization) != len(tc.tmpl.Subject.Organization) {
				t.Errorf("subject %v, want %v", crt.Subject, tc.tmpl.Subject)
			}
			if serials[crt.SerialNumber.String()] || crt.SerialNumber.Int64() < 2 {
				t.Errorf("serial %s reused or the CA's", crt.SerialNumber)
			}
			serials[crt.SerialNumber.String()] = true
			if !crt.NotAfter.After(time.Now().Add(59*time.Minute)) || crt.NotAfter.After(time.Now().Add(time.Hour)) {
				t.Errorf("valid until %s, want the CA's hour", crt.NotAfter)
			}
		})
	}
}

// TestLoad: a CA saved (PEM, KeyPEM) and loaded issues certificates that
// verify against the saved PEM, with serials past the first run's; a key
// that is not the certificate's, or no PEM at all, is refused.
func TestLoad(t *testing.T) {
	ca, err := New("saved CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := ca.KeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(ca.PEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	if !loaded.NotAfter().Equal(ca.NotAfter()) || string(loaded.PEM) != string(ca.PEM) {
		t.Fatal("the loaded CA is not the saved one")
	}
	crtPEM, _, err := loaded.Issue(x509.Certificate{Subject: pkix.Name{CommonName: "127.0.0.1"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}})
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.PEM)
	b, _ := pem.Decode(crtPEM)
	crt, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := crt.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		t.Fatalf("a certificate of the loaded CA does not verify against the saved PEM: %v", err)
	}
	if crt.SerialNumber.Int64() <= 1 {
		t.Errorf("serial %d: may repeat the first run's", crt.SerialNumber)
	}
	other, err := New("other CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	otherKey, _ := other.KeyPEM()
	for name, in := range map[string][2][]byte{
		"another CA's key": {ca.PEM, otherKey},
		"no PEM":           {[]byte("garbage"), keyPEM},
		"key for cert":     {keyPEM, ca.PEM},
	} {
		if _, err := Load(in[0], in[1]); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}
