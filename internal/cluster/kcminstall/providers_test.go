package kcminstall

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/memory"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
)

// releasePaths is the cached v1.11.4 release (skips when kbook has not
// fetched its sources).
func releasePaths(t *testing.T) controllers.K0rdentPaths {
	t.Helper()
	r, err := controllers.K0rdent("v1.11.4")
	if err != nil {
		t.Fatal(err)
	}
	p, why := controllers.K0rdentAvailable(r, true)
	if why != "" {
		t.Skipf("k0rdent v1.11.4 sources: %s", why)
	}
	return p
}

// render renders ch with values as `helm template` does and returns the
// kinds of the objects rendered.
func render(t *testing.T, ch *chart.Chart, values map[string]any) map[string]int {
	t.Helper()
	vals, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: "r", Namespace: "kcm-system"}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.Render(ch, vals)
	if err != nil {
		t.Fatalf("%s: %v", ch.Name(), err)
	}
	kinds := map[string]int{}
	for _, doc := range out {
		for _, part := range strings.Split(doc, "\n---") {
			for _, line := range strings.Split(part, "\n") {
				if k, ok := strings.CutPrefix(line, "kind: "); ok {
					kinds[strings.TrimSpace(k)]++
					break
				}
			}
		}
	}
	return kinds
}

// TestSubcharts: cert-manager's and the operator's charts, packaged from
// their modules as their releases do, render their controllers, and
// cert-manager's CRDs only under installCRDs; ReleaseCharts puts them
// inside kcm-regional (and so inside kcm) at those versions.
func TestSubcharts(t *testing.T) {
	p := releasePaths(t)
	cm, err := CertManagerChart(p.ModuleDir("cert-manager"), "v1.11.5")
	if err != nil {
		t.Fatal(err)
	}
	if cm.Metadata.Version != "v1.11.5" || cm.AppVersion() != "v1.11.5" {
		t.Errorf("cert-manager chart %s / %s", cm.Metadata.Version, cm.AppVersion())
	}
	if k := render(t, cm, map[string]any{"installCRDs": true}); k["CustomResourceDefinition"] != 6 || k["Deployment"] != 3 {
		t.Errorf("cert-manager with installCRDs: %v", k)
	}
	if k := render(t, cm, nil); k["CustomResourceDefinition"] != 0 {
		t.Errorf("cert-manager without installCRDs rendered %d CRDs", k["CustomResourceDefinition"])
	}
	op, err := OperatorChart(p.ModuleDir("capi-operator"), "v0.28.0")
	if err != nil {
		t.Fatal(err)
	}
	if op.Metadata.Version != "0.28.0" {
		t.Errorf("operator chart version %s", op.Metadata.Version)
	}
	k := render(t, op, nil)
	if k["Deployment"] != 1 || k["CustomResourceDefinition"] == 0 || k["Certificate"] != 1 {
		t.Errorf("operator: %v", k)
	}
	img, _ := op.Values["image"].(map[string]any)["manager"].(map[string]any)
	if img["repository"] != OperatorImageRepository || img["tag"] != "v0.28.0" || img["pullPolicy"] != "IfNotPresent" {
		t.Errorf("operator image values %v", img)
	}

	sv, err := SveltosCRDsChart("1.12.0", p.ModuleDir("sveltos-addon"), p.ModuleDir("sveltos-lib"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sv.CRDObjects()); n < 20 {
		t.Errorf("sveltos-crds: %d CRDs", n)
	}

	charts, err := ReleaseCharts(filepath.Join(p.ModuleDir("kcm"), "templates"), "v1.11.4", cm, op, sv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReleaseCharts(filepath.Join(p.ModuleDir("kcm"), "templates"), "v1.11.4", &chart.Chart{Metadata: &chart.Metadata{Name: "nobody-needs-me", Version: "1.0.0"}}); err == nil ||
		!strings.Contains(err.Error(), "nobody-needs-me") {
		t.Errorf("a dependency no chart names: %v", err)
	}
	for _, c := range charts {
		if c.Name == chartSveltos {
			// Only the CRDs are packaged: the chart names only them.
			ch, err := loader.LoadArchive(bytes.NewReader(c.Archive))
			if err != nil {
				t.Fatal(err)
			}
			if len(ch.Metadata.Dependencies) != 1 || sub(ch, chartSveltosCRDs) == nil || ch.Lock != nil {
				t.Errorf("projectsveltos: dependencies %v, packaged %d", ch.Metadata.Dependencies, len(ch.Dependencies()))
			}
		}
	}
	for _, c := range charts {
		if c.Name != chartRegional && c.Name != chartKCM {
			continue
		}
		ch, err := loader.LoadArchive(bytes.NewReader(c.Archive))
		if err != nil {
			t.Fatal(err)
		}
		if c.Name == chartKCM {
			ch = sub(ch, chartRegional)
		}
		for name, v := range map[string]string{chartCertManager: "v1.11.5", chartOperator: "0.28.0"} {
			if s := sub(ch, name); s == nil || s.Metadata.Version != v {
				t.Errorf("%s: subchart %s missing or not %s", c.Name, name, v)
			}
			for _, d := range ch.Metadata.Dependencies {
				if d.Name == name && d.Version != v {
					t.Errorf("%s's Chart.yaml names %s %s, want %s", c.Name, name, d.Version, v)
				}
			}
		}
	}
}

// TestProviderComponents: the core's, CAPD's and kubeadm's components, pushed as the
// Cluster API operator fetches them (its oci_source.go: oras.Copy of the
// tag, files picked by their layer's title), give the metadata and the
// components, whose Deployments pull IfNotPresent.
func TestProviderComponents(t *testing.T) {
	p := releasePaths(t)
	cs, err := releaseComponents(p, "v1.13.4")
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]bool{}
	for _, c := range cs {
		types[c.Type] = true
	}
	if len(types) != 4 || !types["bootstrap"] || !types["control-plane"] {
		t.Errorf("components of types %v, want core, infrastructure, bootstrap, control-plane", types)
	}
	reg, err := StartRegistry("")
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if err := PushComponents(reg.Host, cs); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		files := fetchLikeOperator(t, fmt.Sprintf("%s/%s/%s", reg.Host, ProviderPath, c.Repo), c.Version)
		comp := files[c.Type+"-components.yaml"]
		if !bytes.Contains(files["metadata.yaml"], []byte("releaseSeries")) {
			t.Errorf("%s: metadata.yaml %q", c.Repo, files["metadata.yaml"])
		}
		if !bytes.Contains(comp, []byte("kind: Deployment")) || !bytes.Contains(comp, []byte("imagePullPolicy: IfNotPresent")) || bytes.Contains(comp, []byte("imagePullPolicy: Always")) {
			t.Errorf("%s: components (%d bytes) lack a Deployment pulling IfNotPresent", c.Repo, len(comp))
		}
	}
}

// fetchLikeOperator copies repo:tag over plain HTTP as the operator's
// CopyOCIStore does and returns the layers by title.
func fetchLikeOperator(t *testing.T, repo, tag string) map[string][]byte {
	t.Helper()
	r, err := remote.NewRepository(repo)
	if err != nil {
		t.Fatal(err)
	}
	r.PlainHTTP = true
	store := memory.New()
	ctx := context.Background()
	desc, err := oras.Copy(ctx, r, tag, store, tag, oras.DefaultCopyOptions)
	if err != nil {
		t.Fatalf("copy %s:%s: %v", repo, tag, err)
	}
	rc, err := store.Fetch(ctx, desc)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var m ocispec.Manifest
	if err := json.NewDecoder(rc).Decode(&m); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, l := range m.Layers {
		lr, err := store.Fetch(ctx, l)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(lr)
		lr.Close()
		out[l.Annotations[ocispec.AnnotationTitle]] = data
	}
	return out
}

// TestRegistryTLS: the cluster-facing listener serves the registry over
// TLS with a certificate for its address that its CA verifies; plain HTTP
// there is refused; 127.0.0.1 stays plain HTTP.
func TestRegistryTLS(t *testing.T) {
	reg, err := StartRegistry("127.0.0.2")
	if err != nil {
		t.Skipf("no second loopback address here: %v", err)
	}
	defer reg.Close()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(reg.CA) {
		t.Fatalf("CA %q", reg.CA)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Get("https://" + reg.Cluster + "/v2/")
	if err != nil {
		t.Fatalf("TLS with the CA: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /v2/ over TLS: %s", resp.Status)
	}
	if resp, err := http.Get("https://" + reg.Cluster + "/v2/"); err == nil {
		resp.Body.Close()
		t.Errorf("TLS without the CA was accepted")
	}
	if resp, err := http.Get("http://" + reg.Cluster + "/v2/"); err == nil && resp.StatusCode == http.StatusOK {
		resp.Body.Close()
		t.Errorf("plain HTTP on the cluster-facing listener answered")
	}
	resp, err = http.Get("http://" + reg.Host + "/v2/")
	if err != nil {
		t.Fatalf("plain HTTP on 127.0.0.1: %v", err)
	}
	resp.Body.Close()
}
