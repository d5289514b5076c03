package kcminstall

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/provider/manifest"
)

// KubeadmProvider is the Management's entry for Cluster API's kubeadm
// bootstrap and control-plane providers. k0rdent ships no ProviderTemplate
// for them (its own templates bootstrap with k0smotron), but the
// ClusterTemplates `kbook template init --provider docker|inmemory` writes
// need them: Install adds one the way an organisation adds its own
// provider, without modifying k0rdent (the kubeadm chart here; its
// ProviderTemplate as `kbook provider manifest` writes it). The local
// plane's stand-in has the same name.
const KubeadmProvider = "cluster-api-provider-kubeadm"

//go:embed kubeadm
var kubeadmFS embed.FS

// KubeadmChart is kbook's chart for the kubeadm providers at the release's
// Cluster API version capiVersion (e.g. v1.13.4): a BootstrapProvider and a
// ControlPlaneProvider of the Cluster API operator, their components and
// images from kcm's global registry, as kcm's provider charts do.
func KubeadmChart(capiVersion string) (*chart.Chart, error) {
	var files []*loader.BufferedFile
	err := fs.WalkDir(kubeadmFS, "kubeadm", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := kubeadmFS.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, &loader.BufferedFile{Name: strings.TrimPrefix(p, "kubeadm/"), Data: data})
		return nil
	})
	if err != nil {
		return nil, err
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("%s chart: %w", KubeadmProvider, err)
	}
	v := strings.TrimPrefix(capiVersion, "v")
	ch.Metadata.Version, ch.Metadata.AppVersion = v, "v"+v
	return ch, nil
}

// kubeadmTemplate is the ProviderTemplate of the kubeadm chart, published
// in kcm's templates repository, and its Management entry.
func kubeadmTemplate(ch *chart.Chart) (*unstructured.Unstructured, map[string]any, error) {
	m, err := manifest.ForChart(ch, manifest.Options{Repo: k0rdent.TemplatesRepoName})
	if err != nil {
		return nil, nil, err
	}
	return &unstructured.Unstructured{Object: m.ProviderTemplate}, m.Entry, nil
}
