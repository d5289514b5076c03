package kcminstall

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// fluxObjects builds a Flux controller's own kustomize bases (config/crd,
// config/rbac and config/manager of its module: CRDs, RBAC, Deployment,
// Service) into namespace, its image renamed to image (repository:tag),
// as the base config/default does without the Namespace object (and, for
// helm-controller, without the source-controller release it downloads).
func fluxObjects(moduleDir, namespace, kustomizeImage, image string) ([]*unstructured.Unstructured, error) {
	name, tag, err := splitImage(image)
	if err != nil {
		return nil, err
	}
	overlay, err := os.MkdirTemp("", "kbook-flux-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(overlay)
	var resources strings.Builder
	for _, b := range []string{"crd", "rbac", "manager"} {
		dir := filepath.Join(moduleDir, "config", b)
		if _, err := os.Stat(filepath.Join(dir, "kustomization.yaml")); err != nil {
			return nil, fmt.Errorf("Flux base: %w", err)
		}
		// kustomize refuses absolute resource folders.
		rel, err := filepath.Rel(overlay, dir)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&resources, "- %s\n", filepath.ToSlash(rel))
	}
	k := fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: %s
resources:
%simages:
- name: %s
  newName: %s
  newTag: %s
`, namespace, resources.String(), kustomizeImage, name, tag)
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		return nil, err
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	res, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), overlay)
	if err != nil {
		return nil, fmt.Errorf("kustomize build of %s: %w", moduleDir, err)
	}
	var out []*unstructured.Unstructured
	for _, r := range res.Resources() {
		// Through JSON: kustomize's maps hold Go ints, which
		// unstructured's deep copies refuse; its JSON decoding gives
		// int64s.
		data, err := r.MarshalJSON()
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, err
		}
		if u.GetKind() == "Namespace" {
			continue
		}
		out = append(out, u)
	}
	return out, nil
}

// splitImage splits repository:tag.
func splitImage(ref string) (name, tag string, err error) {
	for i := len(ref) - 1; i >= 0 && ref[i] != '/'; i-- {
		if ref[i] == ':' {
			return ref[:i], ref[i+1:], nil
		}
	}
	return "", "", fmt.Errorf("image %q has no tag", ref)
}
