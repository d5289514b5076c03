package plane

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/tinyca"
)

// wire reuses a snapshot's wiring only for a restored plane whose
// webhook ports are all free, in the plane's range, one per controller
// with webhooks, and whose CA has a day left; else it picks new ports and
// a new CA and says why. The ports it checked are free again after it.
func TestWire(t *testing.T) {
	r, err := controllers.K0rdent(controllers.DefaultK0rdentVersion)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _, _, err := wire(Options{Release: r, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	caKey := func(ca *tinyca.CA) []byte {
		k, err := ca.KeyPEM()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	good := func() *Wiring {
		ca, err := tinyca.New("test CA", caValidity)
		if err != nil {
			t.Fatal(err)
		}
		// Ports free now (another package's plane may use some of
		// those fresh had).
		free, err := planePorts(len(fresh.webhook), planePortLow, planePortHigh)
		if err != nil {
			t.Fatal(err)
		}
		ports := map[string]int{}
		for name := range fresh.webhook {
			ports[name], free = free[0], free[1:]
		}
		return &Wiring{WebhookPorts: ports, CACert: ca.PEM, CAKey: caKey(ca)}
	}
	var anyName string
	for name := range fresh.webhook {
		anyName = name
	}
	for _, tc := range []struct {
		name     string
		restored bool
		wiring   func() *Wiring
		hold     bool   // listen on anyName's port meanwhile
		why      string // "" reused
	}{
		{"reused", true, good, false, ""},
		{"not a restored plane", false, good, false, "-"},
		{"no wiring", true, func() *Wiring { return nil }, false, "-"},
		{"a port taken", true, good, true, "port %d is taken"},
		{"a controller's port missing", true, func() *Wiring {
			w := good()
			delete(w.WebhookPorts, anyName)
			w.WebhookPorts["other"] = 17001
			return w
		}, false, "it has no webhook port for " + anyName},
		{"one controller fewer", true, func() *Wiring {
			w := good()
			delete(w.WebhookPorts, anyName)
			return w
		}, false, "webhook ports for"},
		{"a port out of range", true, func() *Wiring {
			w := good()
			w.WebhookPorts[anyName] = 8443
			return w
		}, false, "port 8443 is outside 17000-18999"},
		{"the CA expiring", true, func() *Wiring {
			w := good()
			ca, err := tinyca.New("test CA", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			w.CACert, w.CAKey = ca.PEM, caKey(ca)
			return w
		}, false, "its CA expires in"},
		{"the CA's key not its own", true, func() *Wiring {
			w := good()
			other, err := tinyca.New("other CA", caValidity)
			if err != nil {
				t.Fatal(err)
			}
			w.CAKey = caKey(other)
			return w
		}, false, "key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.wiring()
			why := tc.why
			if tc.hold {
				port := w.WebhookPorts[anyName]
				// (Taken by another program already: as good.)
				if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
					defer l.Close()
				}
				why = fmt.Sprintf(why, port)
			}
			log := &lines{}
			pt, certs, rewired, err := wire(Options{Release: r, StateDir: t.TempDir(), Restored: tc.restored, Wiring: w, Logger: log})
			if err != nil {
				t.Fatal(err)
			}
			if len(pt.webhook) != len(fresh.webhook) || len(pt.health) != len(fresh.health) || pt.storage == 0 {
				t.Fatalf("ports = %+v", pt)
			}
			if rewired != (why == "") {
				t.Fatalf("rewired = %v, want %v; log:\n%s", rewired, why == "", log)
			}
			if why == "" {
				if !bytes.Equal(certs.CA, w.CACert) {
					t.Error("the reused wiring's CA is not the plane's")
				}
				for name, port := range w.WebhookPorts {
					if pt.webhook[name] != port {
						t.Errorf("%s: port %d, want the wiring's %d", name, pt.webhook[name], port)
					}
					l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
					if err != nil {
						t.Errorf("%s's port %d still held after wire: %v", name, port, err)
						continue
					}
					l.Close()
				}
				for name, port := range pt.health {
					for _, wp := range w.WebhookPorts {
						if port == wp {
							t.Errorf("%s's health port %d is a reused webhook port", name, port)
						}
					}
				}
				if log.String() != "" {
					t.Errorf("log:\n%s", log)
				}
				return
			}
			if w != nil && bytes.Equal(certs.CA, w.CACert) {
				t.Error("a wiring not reused, yet its CA is the plane's")
			}
			if why != "-" && !strings.Contains(log.String(), why) {
				t.Errorf("log lacks %q:\n%s", why, log)
			}
		})
	}
}
