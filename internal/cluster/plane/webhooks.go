package plane

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/k0rdent/kbook/internal/cluster/plane/controllers"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// Webhooks are the admission webhook configurations of the plane, their
// services replaced by the local controllers' URLs.
type Webhooks struct {
	Mutating   []*admissionv1.MutatingWebhookConfiguration
	Validating []*admissionv1.ValidatingWebhookConfiguration
}

// webhookSource is where a controller's webhook configurations come from.
type webhookSource struct {
	Controller string
	Module     string
	// File is a kubebuilder manifests.yaml; Chart a chart folder whose
	// templates/webhooks.yaml renders them.
	File, Chart string
}

var webhookSources = []webhookSource{
	{Controller: controllers.CAPICore, Module: "capi", File: "config/webhook/manifests.yaml"},
	{Controller: controllers.KubeadmBootstrap, Module: "capi", File: "bootstrap/kubeadm/config/webhook/manifests.yaml"},
	{Controller: controllers.KubeadmControlPlane, Module: "capi", File: "controlplane/kubeadm/config/webhook/manifests.yaml"},
	{Controller: controllers.CAPD, Module: "capd", File: "infrastructure/docker/config/webhook/manifests.yaml"},
	{Controller: controllers.KCM, Module: "kcm", Chart: "templates/provider/kcm"},
}

// LoadWebhooks reads the webhook configurations the controllers ship and
// points each webhook at https://127.0.0.1:<port><path> of its controller,
// trusted through caBundle. Controllers missing from ports are left out.
func LoadWebhooks(p controllers.K0rdentPaths, ports map[string]int, caBundle []byte) (*Webhooks, error) {
	w := &Webhooks{}
	for _, src := range webhookSources {
		port, ok := ports[src.Controller]
		if !ok {
			continue
		}
		var data []byte
		var err error
		if src.File != "" {
			data, err = os.ReadFile(filepath.Join(p.ModuleDir(src.Module), filepath.FromSlash(src.File)))
		} else {
			data, err = renderChartWebhooks(filepath.Join(p.ModuleDir(src.Module), filepath.FromSlash(src.Chart)))
		}
		if err != nil {
			return nil, fmt.Errorf("webhooks of %s: %w", src.Controller, err)
		}
		if err := w.add(data, src.Controller, port, caBundle); err != nil {
			return nil, fmt.Errorf("webhooks of %s: %w", src.Controller, err)
		}
	}
	return w, nil
}

// renderChartWebhooks renders templates/webhooks.yaml of a chart with its
// helpers and default values (admission webhooks enabled).
func renderChartWebhooks(dir string) ([]byte, error) {
	full, err := loader.LoadDir(dir)
	if err != nil {
		return nil, err
	}
	c := &chart.Chart{Metadata: full.Metadata, Values: full.Values}
	for _, t := range full.Templates {
		if t.Name == "templates/webhooks.yaml" || strings.HasSuffix(t.Name, ".tpl") {
			c.Templates = append(c.Templates, t)
		}
	}
	values := map[string]any{"admissionWebhook": map[string]any{"enabled": true}}
	vals, err := chartutil.ToRenderValues(c, values, chartutil.ReleaseOptions{Name: "kcm", Namespace: k0rdent.SystemNamespace}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	out, err := engine.Render(c, vals)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	keys := make([]string, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.HasSuffix(k, "webhooks.yaml") {
			buf.WriteString(out[k])
			buf.WriteString("\n---\n")
		}
	}
	if buf.Len() == 0 {
		return nil, fmt.Errorf("%s renders no webhooks", dir)
	}
	return buf.Bytes(), nil
}

func (w *Webhooks) add(data []byte, controller string, port int, caBundle []byte) error {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var meta struct{ Kind string }
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return err
		}
		switch meta.Kind {
		case "MutatingWebhookConfiguration":
			var c admissionv1.MutatingWebhookConfiguration
			if err := yaml.Unmarshal(doc, &c); err != nil {
				return err
			}
			c.Name = "kbook-" + controller + "-" + c.Name
			c.Annotations = nil
			for i := range c.Webhooks {
				c.Webhooks[i].ClientConfig = local(c.Webhooks[i].ClientConfig, port, caBundle)
			}
			w.Mutating = append(w.Mutating, &c)
		case "ValidatingWebhookConfiguration":
			var c admissionv1.ValidatingWebhookConfiguration
			if err := yaml.Unmarshal(doc, &c); err != nil {
				return err
			}
			c.Name = "kbook-" + controller + "-" + c.Name
			c.Annotations = nil
			for i := range c.Webhooks {
				c.Webhooks[i].ClientConfig = local(c.Webhooks[i].ClientConfig, port, caBundle)
			}
			w.Validating = append(w.Validating, &c)
		}
	}
}

// local turns a service reference into the URL of the local controller.
func local(cc admissionv1.WebhookClientConfig, port int, caBundle []byte) admissionv1.WebhookClientConfig {
	path := "/"
	if cc.Service != nil && cc.Service.Path != nil {
		path = *cc.Service.Path
	}
	url := fmt.Sprintf("https://127.0.0.1:%d%s", port, path)
	return admissionv1.WebhookClientConfig{URL: &url, CABundle: caBundle}
}

// applyWebhooks creates the webhook configurations of kcm (kcm true) or
// of every other controller (kcm false).
func applyWebhooks(ctx context.Context, cs kubernetes.Interface, w *Webhooks, kcmName string, kcm bool) error {
	mine := func(name string) bool { return strings.HasPrefix(name, "kbook-"+kcmName+"-") == kcm }
	for _, c := range w.Mutating {
		if !mine(c.Name) {
			continue
		}
		if err := upsert(ctx, c.Name, func() error {
			_, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, c, metav1.CreateOptions{})
			return err
		}, func() error {
			return cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, c.Name, metav1.DeleteOptions{})
		}); err != nil {
			return err
		}
	}
	for _, c := range w.Validating {
		if !mine(c.Name) {
			continue
		}
		if err := upsert(ctx, c.Name, func() error {
			_, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, c, metav1.CreateOptions{})
			return err
		}, func() error {
			return cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, c.Name, metav1.DeleteOptions{})
		}); err != nil {
			return err
		}
	}
	return nil
}

// upsert creates, or replaces what a previous plane left.
func upsert(ctx context.Context, name string, create, del func() error) error {
	err := create()
	if apierrors.IsAlreadyExists(err) {
		if err := del(); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("webhook configuration %s: %w", name, err)
		}
		err = create()
	}
	if err != nil {
		return fmt.Errorf("webhook configuration %s: %w", name, err)
	}
	return nil
}
