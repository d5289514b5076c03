package plane

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"path/filepath"
	"strconv"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
)

// controller ports.
type ports struct {
	health, webhook map[string]int
	storage         int
}

// capdDebugPort is where CAPD's in-memory backend always listens
// (cluster-api test/infrastructure/inmemory/pkg/server/mux.go,
// DefaultDebugPort; CAPD has no flag for it, nor for its workload
// clusters' ports from 20000 up): one local plane runs per machine.
const capdDebugPort = 19000

// capdPortFree fails, before anything starts, when another plane (or
// anything else) holds CAPD's fixed port: CAPD would otherwise crash at
// start with an address-in-use error in its log.
func capdPortFree() error {
	l, err := net.Listen("tcp", ":"+strconv.Itoa(capdDebugPort)) // as CAPD listens
	if err != nil {
		return fmt.Errorf("port %d is in use, and CAPD's in-memory backend always listens there, so one local k0rdent plane runs per machine: is another `kbook run --k0rdent`, `kbook cluster up --k0rdent` or TestPlane running? (kbook cluster status; ss -ltnp 'sport = :%d')", capdDebugPort, capdDebugPort)
	}
	return l.Close()
}

// wire picks the plane's ports and webhook certificates: those of
// o.Wiring for a restored plane when they can be reused (rewired), else
// new ones.
func wire(o Options) (pt ports, certs *Certs, rewired bool, err error) {
	dir := filepath.Join(o.StateDir, "certs")
	if o.Restored && o.Wiring != nil {
		var names []string
		for _, c := range o.Release.Controllers {
			if hasWebhooks(c.Name) {
				names = append(names, c.Name)
			}
		}
		ca, release, why := o.Wiring.reuse(names)
		defer release()
		if why == "" {
			// The reused ports are held until wire returns: allocate
			// skips them.
			if pt, err = allocate(o.Release); err != nil {
				return pt, nil, false, err
			}
			maps.Copy(pt.webhook, o.Wiring.WebhookPorts)
			certs, err = newCertsFrom(dir, ca)
			return pt, certs, err == nil, err
		}
		o.Logger.Infof("the snapshot's webhook ports and CA are not reused (%s): the CRDs' conversion webhooks are rewired", why)
	}
	if pt, err = allocate(o.Release); err != nil {
		return pt, nil, false, err
	}
	certs, err = NewCerts(dir)
	return pt, certs, false, err
}

// allocate picks the ports of the controllers.
func allocate(r *controllers.K0rdentRelease) (ports, error) {
	n := 2*len(r.Controllers) + 1
	free, err := planePorts(n, planePortLow, planePortHigh)
	if err != nil {
		return ports{}, err
	}
	pt := ports{health: map[string]int{}, webhook: map[string]int{}, storage: free[n-1]}
	for i, c := range r.Controllers {
		pt.health[c.Name] = free[2*i]
		if hasWebhooks(c.Name) {
			pt.webhook[c.Name] = free[2*i+1]
		}
	}
	return pt, nil
}

// The controllers' ports come from [planePortLow, planePortHigh): below
// CAPD's fixed ports (19000, workload clusters from 20000) and outside
// Linux's ephemeral range (32768-60999 by default), from which the kernel
// gives every listener on port 0 and every outgoing connection its port.
// A port picked from the ephemeral range and released until the
// controller binds it could be taken meanwhile by any connection on the
// machine (kcm once failed to start so, "bind: address already in use",
// on a loaded machine); this range is used only by the one plane that
// holds LockMachine.
const (
	planePortLow  = 17000
	planePortHigh = 19000
)

// planePorts picks n distinct ports of [low, high) free on 127.0.0.1 now,
// from a random start, wrapping around.
func planePorts(n, low, high int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	size := high - low
	start := rand.IntN(size)
	var ports []int
	for i := 0; i < size && len(ports) < n; i++ {
		p := low + (start+i)%size
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		ls = append(ls, l)
		ports = append(ports, p)
	}
	if len(ports) < n {
		return nil, fmt.Errorf("the local k0rdent plane needs %d free ports between %d and %d on 127.0.0.1, and only %d are free", n, low, high-1, len(ports))
	}
	return ports, nil
}
