package kcminstall

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// ProviderPath is where a k0rdent registry holds the Cluster API
// providers' components and images (the provider charts' fetchConfig.oci
// and imageUrl: <global.registry>/capi/...).
const ProviderPath = "capi"

// Components is one Cluster API provider's release artifacts, as the
// Cluster API operator fetches them from an OCI registry
// (<global.registry>/capi/<Repo>:<Version>): its metadata.yaml and its
// <type>-components.yaml, each a layer titled with its file name.
type Components struct {
	// Repo is the repository below ProviderPath, e.g.
	// cluster-api-components.
	Repo, Version string
	// Type is the clusterctl provider type (core, infrastructure, ...).
	Type string
	// Metadata and YAML are metadata.yaml and <Type>-components.yaml.
	Metadata, YAML []byte
}

// ProviderComponents builds a provider's components YAML from the
// kustomize base config/default below providerDir, as Cluster API's
// `make release-manifests` does after its manifest-modification (pull
// policy IfNotPresent; the image is the provider chart's, set by kcm's
// imageUrl), with the module's metadata.yaml.
func ProviderComponents(providerDir, metadataFile, repo, version, typ string) (Components, error) {
	c := Components{Repo: repo, Version: version, Type: typ}
	overlay, err := os.MkdirTemp("", "kbook-components-")
	if err != nil {
		return c, err
	}
	defer os.RemoveAll(overlay)
	rel, err := filepath.Rel(overlay, filepath.Join(providerDir, "config", "default"))
	if err != nil {
		return c, err
	}
	k := fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- %s
patches:
- target:
    kind: Deployment
  patch: |-
    - op: replace
      path: /spec/template/spec/containers/0/imagePullPolicy
      value: IfNotPresent
`, filepath.ToSlash(rel))
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		return c, err
	}
	if c.YAML, err = kustomizeBuild(overlay); err != nil {
		return c, fmt.Errorf("%s components: %w", repo, err)
	}
	if c.Metadata, err = os.ReadFile(metadataFile); err != nil {
		return c, fmt.Errorf("%s components: %w", repo, err)
	}
	return c, nil
}

// PushComponents pushes each provider's artifact to the registry at host
// (plain HTTP) as <host>/capi/<Repo>:<Version>.
func PushComponents(host string, cs []Components) error {
	for _, c := range cs {
		img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
		for _, f := range []struct {
			name string
			data []byte
		}{{"metadata.yaml", c.Metadata}, {c.Type + "-components.yaml", c.YAML}} {
			var err error
			img, err = mutate.Append(img, mutate.Addendum{
				Layer:       static.NewLayer(f.data, types.MediaType("application/vnd.oci.image.layer.v1.tar")),
				Annotations: map[string]string{ocispec.AnnotationTitle: f.name},
			})
			if err != nil {
				return err
			}
		}
		ref, err := name.ParseReference(fmt.Sprintf("%s/%s/%s:%s", host, ProviderPath, c.Repo, c.Version), name.Insecure)
		if err != nil {
			return err
		}
		if err := remote.Write(ref, img); err != nil {
			return fmt.Errorf("push %s: %w", ref, err)
		}
	}
	return nil
}
