package plane

import (
	"context"
	"fmt"
	"time"

	"github.com/k0rdent/kbook/internal/cluster/plane/releasecrds"
	"github.com/k0rdent/kbook/internal/crdapply"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiext "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/client-go/rest"
)

// WireConversion points the conversion webhooks of crds at the local
// controllers: url is https://127.0.0.1:<port>/convert of each
// ConversionBy, trusted through caBundle.
func WireConversion(crds []releasecrds.CRD, webhookPorts map[string]int, caBundle []byte) error {
	for _, c := range crds {
		if c.ConversionBy == "" {
			continue
		}
		port, ok := webhookPorts[c.ConversionBy]
		if !ok {
			return fmt.Errorf("CRD %s: no webhook port for %s", c.Object.Name, c.ConversionBy)
		}
		url := fmt.Sprintf("https://127.0.0.1:%d/convert", port)
		c.Object.Spec.Conversion = &apiextv1.CustomResourceConversion{
			Strategy: apiextv1.WebhookConverter,
			Webhook: &apiextv1.WebhookConversion{
				ConversionReviewVersions: []string{"v1", "v1beta1"},
				ClientConfig:             &apiextv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
			},
		}
	}
	return nil
}

// installCRDs creates or updates the CRDs and waits until all are served.
func installCRDs(ctx context.Context, cfg *rest.Config, crds []releasecrds.CRD) error {
	cs, err := apiext.NewForConfig(cfg)
	if err != nil {
		return err
	}
	api := cs.ApiextensionsV1().CustomResourceDefinitions()
	// A few at a time: each CRD makes the API server build its OpenAPI
	// and handlers, which dominates.
	jobs := make([]func() error, len(crds))
	for i, c := range crds {
		jobs[i] = func() error {
			if _, err := crdapply.Apply(ctx, api, c.Object); err != nil {
				return fmt.Errorf("CRD %s (%s): %w", c.Object.Name, c.Source, err)
			}
			return nil
		}
	}
	if err := atOnce(6, jobs); err != nil {
		return err
	}
	for _, c := range crds {
		if err := crdapply.AwaitEstablished(ctx, api, c.Object.Name, 50*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}
