package kubesec

import (
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
)

// Images calls found for each image reference in obj: the non-empty
// string values of keys named image or imageRepository, or ending in
// Image (customImage), at any depth.
func Images(obj map[string]any, found func(p findings.Path, key, image string)) {
	Walk(obj, func(p findings.Path, key string, v any) bool {
		if s, ok := v.(string); ok && s != "" && IsImageKey(key) {
			found(p, key, s)
			return true
		}
		return false
	})
}

// IsImageKey tells the keys whose string values are image references.
func IsImageKey(k string) bool {
	return k == "image" || k == "imageRepository" || strings.HasSuffix(k, "Image")
}

// Registry is the registry of an image reference: its first part when
// that looks like a host (it has a . or :, or is localhost), else
// docker.io. The value of an imageRepository key may be a bare registry
// (registry.k8s.io).
func Registry(image, key string) string {
	first, _, found := strings.Cut(image, "/")
	if found && (strings.ContainsAny(first, ".:") || first == "localhost") {
		return first
	}
	if !found && key == "imageRepository" && strings.ContainsAny(first, ".:") {
		return first
	}
	return "docker.io"
}

// fullImage spells out the implicit docker.io registry.
func fullImage(image, key string) string {
	reg := Registry(image, key)
	if strings.HasPrefix(image, reg) {
		return image
	}
	if !strings.Contains(image, "/") {
		return "docker.io/library/" + image
	}
	return "docker.io/" + image
}

// RegistryAllowed tells whether an image is from one of the allowed
// entries: a registry host or a repository prefix
// (registry.example.com/mirror), with or without https:// or oci://.
func RegistryAllowed(image, key string, allowed []string) bool {
	full := fullImage(image, key)
	for _, a := range allowed {
		a = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(a, "https://"), "oci://"), "/")
		if a == "" {
			continue
		}
		if full == a || strings.HasPrefix(full, a+"/") || strings.HasPrefix(full, a+":") || strings.HasPrefix(full, a+"@") {
			return true
		}
	}
	return false
}
