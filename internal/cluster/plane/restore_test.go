package plane

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/apitest"
	"github.com/k0rdent/kbook/internal/k0rdent"
	apiext "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// TestPlaneRestored starts a plane, stops it and starts another one on the
// same API server as a restored plane (Options.Restored): the state of
// the first, its ports, CA, Helm repository and Flux storage gone with it.
// The second must be reconciled by its own controllers before it is
// ready (kcm's Management condition set after the restore began, every
// Flux object reconciled since), and must really work: a template
// published to its repository made valid, a cluster made Ready through
// the Cluster API webhooks, then deleted. The second serves its webhooks
// where the first did, with its CA (Options.Wiring: no CRD patched); a
// third, one of those ports taken, wires new ones.
func TestPlaneRestored(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the k0rdent plane twice")
	}
	r, paths := release(t, true)
	// Both starts hold the lock once more: no other plane between them.
	unlock, err := LockMachine(context.Background(), func(msg string) { t.Log(msg) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unlock)
	srv := apitest.New() // the plane's objects stay: a server of its own
	t.Cleanup(srv.Stop)
	cfg := srv.Config(t)
	first, err := Start(context.Background(), Options{Release: r, Paths: paths, RESTConfig: cfg, StateDir: t.TempDir(), Logger: apitest.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	oldURL := first.RepoURL()
	wiring, err := first.Wiring()
	if err != nil || wiring == nil {
		t.Fatalf("Wiring = %v, %v", wiring, err)
	}
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}

	restoredAt := time.Now().Add(-time.Second) // conditions have second precision
	log := &lines{}
	p, err := Start(context.Background(), Options{Release: r, Paths: paths, RESTConfig: cfg, StateDir: t.TempDir(), Logger: log, Restored: true, Wiring: wiring})
	if err != nil {
		t.Fatalf("restored start: %v\n%s", err, log)
	}
	t.Cleanup(func() { _ = p.Stop() })
	t.Logf("restored plane ready in %s:\n%s", p.Started.Round(time.Millisecond), log)
	checkWired(t, cfg, p)
	for _, w := range []string{"rewired the restored plane", "webhook ports and CA reused (no CRD patched)", "Flux reconciled the restored", "Management ready"} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("log lacks %q", w)
		}
	}
	if strings.Contains(log.String(), "installed") {
		t.Errorf("a restored plane installed CRDs:\n%s", log)
	}
	if p.RepoURL() == oldURL {
		t.Fatalf("the restored plane's repository has the old URL %s", oldURL)
	}
	ctx := context.Background()
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mgmt, err := dc.Resource(managementGVR).Get(ctx, k0rdent.ManagementName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if at := readySince(t, mgmt); at.Before(restoredAt) {
		t.Errorf("Management Ready since %s, before the restore began (%s): a stale status", at, restoredAt)
	}
	repo, err := dc.Resource(k0rdent.HelmRepositoryGVR).Namespace(k0rdent.SystemNamespace).Get(ctx, k0rdent.TemplatesRepoName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if url, _, _ := unstructured.NestedString(repo.Object, "spec", "url"); url != p.RepoURL() {
		t.Errorf("HelmRepository %s names %s, want this run's %s", k0rdent.TemplatesRepoName, url, p.RepoURL())
	}
	charts, err := dc.Resource(k0rdent.HelmChartGVR).Namespace(k0rdent.SystemNamespace).List(ctx, metav1.ListOptions{})
	if err != nil || len(charts.Items) == 0 {
		t.Fatalf("HelmCharts: %v, %v", charts, err)
	}
	for _, c := range charts.Items {
		url, _, _ := unstructured.NestedString(c.Object, "status", "artifact", "url")
		if !strings.HasPrefix(url, "http://"+p.storageAddr+"/") {
			t.Errorf("HelmChart %s: artifact %q is not served by this run's storage (%s)", c.GetName(), url, p.storageAddr)
		}
	}

	l := newLifecycle(t, p, cfg, fmt.Sprintf("plane-restored-%d", planeRuns.Add(1)))
	tmpl := l.publish(t, "acme-restored")
	t.Logf("ClusterTemplate valid in %s", l.wait(t, ctGVR, tmpl, 2*time.Minute, valid))
	l.deploy(t, tmpl, "dev-r")
	t.Logf("ClusterDeployment Ready in %s", l.wait(t, cdGVR, "dev-r", 3*time.Minute, ready))
	t.Logf("ClusterDeployment, Cluster and machines deleted in %s", l.undeploy(t, "dev-r"))

	// A port of the wiring taken by another program: the next restored
	// plane picks new ports and a new CA, and patches the CRDs to them.
	if wiring, err = p.Wiring(); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	var taken int
	for _, port := range wiring.WebhookPorts {
		taken = port
	}
	hold, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", taken))
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	log = &lines{}
	p, err = Start(context.Background(), Options{Release: r, Paths: paths, RESTConfig: cfg, StateDir: t.TempDir(), Logger: log, Restored: true, Wiring: wiring})
	if err != nil {
		t.Fatalf("restored start, a wiring port taken: %v\n%s", err, log)
	}
	t.Cleanup(func() { _ = p.Stop() })
	for _, w := range []string{fmt.Sprintf("port %d is taken", taken), "CRDs' conversion webhooks", "Management ready"} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("a wiring port taken: log lacks %q:\n%s", w, log)
		}
	}
	checkWired(t, cfg, p)
}

// checkWired checks that every CRD served with a conversion webhook names
// one of p's webhook ports and trusts p's CA.
func checkWired(t *testing.T, cfg *rest.Config, p *Plane) {
	t.Helper()
	ac, err := apiext.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	list, err := ac.ApiextensionsV1().CustomResourceDefinitions().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	urls := map[string]bool{}
	for _, port := range p.ports.webhook {
		urls[fmt.Sprintf("https://127.0.0.1:%d/convert", port)] = true
	}
	var wired int
	for _, c := range list.Items {
		conv := c.Spec.Conversion
		if conv == nil || conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
			continue
		}
		wired++
		cc := conv.Webhook.ClientConfig
		if cc.URL == nil || !urls[*cc.URL] {
			t.Errorf("CRD %s: conversion webhook %v is none of this plane's", c.Name, cc.URL)
		}
		if !bytes.Equal(cc.CABundle, p.certs.CA) {
			t.Errorf("CRD %s: caBundle is not this plane's CA", c.Name)
		}
	}
	if wired == 0 {
		t.Error("no CRD has a conversion webhook")
	}
}

// readySince is when o's Ready condition last became True.
func readySince(t *testing.T, o *unstructured.Unstructured) time.Time {
	t.Helper()
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != "Ready" || m["status"] != "True" {
			continue
		}
		at, err := time.Parse(time.RFC3339, fmt.Sprint(m["lastTransitionTime"]))
		if err != nil {
			t.Fatalf("%s Ready condition: %v", o.GetName(), err)
		}
		return at
	}
	t.Fatalf("%s is not Ready: %v", o.GetName(), o.Object["status"])
	return time.Time{}
}
