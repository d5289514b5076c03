package helmrepo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/k0rdent/kbook/internal/k0rdent"
)

// Where a cluster says which kbook repository serves it: the local k0rdent
// plane writes the URL into this ConfigMap, and `kbook template publish`
// reads it, so a runbook needs nothing but its kubeconfig.
const (
	LocatorNamespace = k0rdent.SystemNamespace
	LocatorName      = "kbook-helm-repository"
	LocatorKey       = "url"
	// DefaultRepoName is the HelmRepository publish makes sure of.
	DefaultRepoName = "kbook-local"
)

// Locator is the ConfigMap that names the repository serving a cluster.
func Locator(url string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: LocatorName, Namespace: LocatorNamespace,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "kbook"}},
		Data: map[string]string{LocatorKey: url},
	}
}

// ErrNoRepository means the cluster is not served by a kbook repository.
var ErrNoRepository = errors.New("no kbook Helm repository serves this cluster")

// LocateURL reads the repository URL of a cluster.
func LocateURL(ctx context.Context, cfg *rest.Config) (string, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", err
	}
	cm, err := cs.CoreV1().ConfigMaps(LocatorNamespace).Get(ctx, LocatorName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", fmt.Errorf("%w (no ConfigMap %s/%s): start one with kbook run --k0rdent or kbook cluster up --k0rdent, or pass --repo-url", ErrNoRepository, LocatorNamespace, LocatorName)
	}
	if err != nil {
		return "", fmt.Errorf("find the kbook Helm repository: %w", err)
	}
	if cm.Data[LocatorKey] == "" {
		return "", fmt.Errorf("%w: ConfigMap %s/%s has no %s", ErrNoRepository, LocatorNamespace, LocatorName, LocatorKey)
	}
	return cm.Data[LocatorKey], nil
}

// PublishOptions configure Publish.
type PublishOptions struct {
	// Namespace of the HelmRepository (required).
	Namespace string
	// Repo is its name (default DefaultRepoName).
	Repo string
	// URL of the kbook repository; empty: LocateURL.
	URL string
	// Interval of the HelmRepository (canonical form; default 10m0s).
	Interval string
}

// Published says what Publish did.
type Published struct {
	Chart *chart.Metadata
	URL   string
	// Namespace and Repo name the HelmRepository.
	Namespace, Repo string
	Created         bool // the HelmRepository was created (else it was there)
}

// String says what was published where, as kbook template publish
// prints it.
func (p *Published) String() string {
	verb := "exists"
	if p.Created {
		verb = "created"
	}
	return fmt.Sprintf("published %s %s to %s (HelmRepository %s/%s %s)", p.Chart.Name, p.Chart.Version, p.URL, p.Namespace, p.Repo, verb)
}

// Publish uploads a packaged chart to the kbook repository of the cluster
// and makes sure a HelmRepository in the namespace points at it, labelled
// for kcm, so a ClusterTemplate there can name the chart.
func Publish(ctx context.Context, cfg *rest.Config, archive []byte, o PublishOptions) (*Published, error) {
	if o.Namespace == "" {
		return nil, errors.New("publish: no namespace")
	}
	if o.Repo == "" {
		o.Repo = DefaultRepoName
	}
	if o.Interval == "" {
		o.Interval = "10m0s"
	}
	ch, err := loader.LoadArchive(bytesReader(archive))
	if err != nil {
		return nil, err
	}
	if o.URL == "" {
		if o.URL, err = LocateURL(ctx, cfg); err != nil {
			return nil, err
		}
	}
	if err := Upload(ctx, o.URL, archive); err != nil {
		return nil, err
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	res := dc.Resource(k0rdent.HelmRepositoryGVR).Namespace(o.Namespace)
	out := &Published{Chart: ch.Metadata, URL: o.URL, Namespace: o.Namespace, Repo: o.Repo}
	cur, err := res.Get(ctx, o.Repo, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		repo := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": k0rdent.FluxSourceAPIVersion, "kind": k0rdent.KindHelmRepository,
			"metadata": map[string]any{"name": o.Repo, "namespace": o.Namespace,
				"labels": map[string]any{k0rdent.ManagedLabel: "true", "app.kubernetes.io/managed-by": "kbook"}},
			"spec": map[string]any{"url": o.URL, "interval": o.Interval},
		}}
		if _, err := res.Create(ctx, repo, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create HelmRepository %s/%s: %w", o.Namespace, o.Repo, err)
		}
		out.Created = true
	case err != nil:
		return nil, fmt.Errorf("HelmRepository %s/%s: %w", o.Namespace, o.Repo, err)
	default:
		url, _, _ := unstructured.NestedString(cur.Object, "spec", "url")
		if url != o.URL {
			return nil, fmt.Errorf("HelmRepository %s/%s points at %s, not at the kbook repository %s: choose another --repo", o.Namespace, o.Repo, url, o.URL)
		}
		if cur.GetLabels()[k0rdent.ManagedLabel] != "true" {
			labels := cur.GetLabels()
			if labels == nil {
				labels = map[string]string{}
			}
			labels[k0rdent.ManagedLabel] = "true"
			cur.SetLabels(labels)
			if _, err := res.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
				return nil, fmt.Errorf("label HelmRepository %s/%s: %w", o.Namespace, o.Repo, err)
			}
		}
	}
	// Flux reads the index again on its interval (10 minutes); ask for it
	// now, as `flux reconcile source helm` does, so the new version is seen.
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, k0rdent.FluxReconcileRequestAnnotation, time.Now().UTC().Format(time.RFC3339Nano))
	if _, err := res.Patch(ctx, o.Repo, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return nil, fmt.Errorf("refresh HelmRepository %s/%s: %w", o.Namespace, o.Repo, err)
	}
	return out, nil
}
