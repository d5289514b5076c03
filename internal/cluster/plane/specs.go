package plane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/supervisor"
)

// checkExe says why the controller binary p cannot run ("": it can).
func checkExe(p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return "is not built"
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return "is not executable"
	}
	return ""
}

// hasWebhooks says whether the controller serves webhooks (Flux's do not).
func hasWebhooks(name string) bool {
	switch name {
	case controllers.SourceController, controllers.HelmController:
		return false
	}
	return true
}

// Requeue settings: the controllers' defaults suit a long-running
// cluster, not a plane that must be ready in seconds.
const (
	// requeueDependency is how soon helm-controller looks again at a
	// HelmRelease whose dependsOn or HelmChart is not ready
	// (helm-controller's default 30s; kcm's chart does not set it).
	// kcm's HelmReleases are a chain (kcm, then capi, then the providers
	// and Sveltos): at 2s the restored plane's Flux resync was 5.4 s,
	// mostly those waits; at 500ms 3.4 s (idle machine).
	requeueDependency = "500ms"
	capiPollInterval  = "5s"
	// fluxConcurrent is source-controller's --concurrent (its default 2):
	// a restored plane has every HelmChart (about 15) fetched again, and
	// two at a time kcm's own chart waited behind others; at 8 the Flux
	// resync took 3.1-3.5 s, not 3.1-4.7 s.
	fluxConcurrent = "8"
)

// controllerSpecs are the processes of the plane, as each project's
// deployment runs them, with local addresses.
func controllerSpecs(o Options, pt ports, certs *Certs, repoURL string) []supervisor.Spec {
	addr := func(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
	var specs []supervisor.Spec
	for _, c := range o.Release.Controllers {
		h := pt.health[c.Name]
		sp := supervisor.Spec{Name: c.Name, Path: o.Paths.Binary(c.Name), Ready: httpReady(h, "/readyz")}
		switch c.Name {
		case controllers.SourceController:
			storage := filepath.Join(o.StateDir, "flux-storage")
			sp.Args = []string{
				"--storage-path=" + storage, "--storage-addr=" + addr(pt.storage), "--storage-adv-addr=" + addr(pt.storage),
				"--health-addr=" + addr(h), "--metrics-addr=0", "--events-addr=", "--watch-all-namespaces=true",
				"--requeue-dependency=" + requeueDependency, "--concurrent=" + fluxConcurrent, "--log-level=info", "--log-encoding=console",
			}
			sp.Env = []string{"RUNTIME_NAMESPACE=" + k0rdent.SystemNamespace}
		case controllers.HelmController:
			sp.Args = []string{
				"--health-addr=" + addr(h), "--metrics-addr=0", "--events-addr=", "--watch-all-namespaces=true",
				"--requeue-dependency=" + requeueDependency, "--log-level=info", "--log-encoding=console",
			}
			sp.Env = []string{"RUNTIME_NAMESPACE=" + k0rdent.SystemNamespace}
		case controllers.KCM:
			sp.Args = []string{
				"--templates-repo-url=" + repoURL,
				"--create-management=false", "--create-release=false", "--create-templates=false",
				"--create-access-management=true",
				"--enable-webhook=true", "--webhook-port=" + strconv.Itoa(pt.webhook[c.Name]), "--webhook-cert-dir=" + certs.Dir,
				"--health-probe-bind-address=" + addr(h), "--metrics-bind-address=0",
				"--leader-election-namespace=" + k0rdent.SystemNamespace,
				"--flux-enabled=true", "--enable-sveltos-ctrl=true",
				"--capi-cluster-poll-interval=" + capiPollInterval,
				"--zap-devel=false",
			}
			sp.Env = []string{"POD_NAMESPACE=" + k0rdent.SystemNamespace, "KCM_NAME=kcm-controller-manager", "HELM_RELEASE_NAME=kcm"}
			sp.Ready = all(httpReady(h, "/readyz"), tlsReady(pt.webhook[c.Name], certs.CA))
		default: // the Cluster API managers
			sp.Args = []string{
				"--webhook-port=" + strconv.Itoa(pt.webhook[c.Name]), "--webhook-cert-dir=" + certs.Dir,
				"--health-addr=" + addr(h), "--diagnostics-address=0", "--insecure-diagnostics=true",
				"--leader-elect=false", "--v=1",
			}
			if c.Name == controllers.CAPD {
				sp.Env = []string{"POD_IP=127.0.0.1"}
			}
			sp.Ready = all(httpReady(h, "/readyz"), tlsReady(pt.webhook[c.Name], certs.CA))
		}
		specs = append(specs, sp)
	}
	return specs
}

func all(checks ...func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		for _, c := range checks {
			if err := c(ctx); err != nil {
				return err
			}
		}
		return nil
	}
}

func httpReady(port int, path string) func(context.Context) error {
	url := fmt.Sprintf("http://127.0.0.1:%d%s", port, path)
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", url, resp.Status)
		}
		return nil
	}
}

// tlsReady succeeds once a webhook server serves TLS with our certificate.
func tlsReady(port int, ca []byte) func(context.Context) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return func(ctx context.Context) error {
		d := tls.Dialer{Config: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}}
		c, err := d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			return fmt.Errorf("webhook server: %w", err)
		}
		return c.Close()
	}
}
