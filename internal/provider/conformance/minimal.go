package conformance

import (
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/k0rdent/kbook/internal/provider"
)

// minimalObject builds the smallest object the schema of the version
// Cluster API uses accepts: required fields only, with their default,
// first enum value, or a value of their type at its minimum.
func minimalObject(cr provider.ContractResource) (*unstructured.Unstructured, error) {
	v := crdVersion(cr.CRD, cr.Version)
	if v == nil || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("version %s has no schema", cr.Version)
	}
	root := v.Schema.OpenAPIV3Schema
	obj := map[string]any{}
	for name, p := range root.Properties {
		if name == "apiVersion" || name == "kind" || name == "metadata" || name == "status" {
			continue
		}
		if slices.Contains(root.Required, name) || name == "spec" {
			val, err := minimal(p, name, 0)
			if err != nil {
				return nil, err
			}
			obj[name] = val
		}
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

func minimal(s apiextensionsv1.JSONSchemaProps, path string, depth int) (any, error) {
	if depth > 30 {
		return nil, fmt.Errorf("%s: schema too deep", path)
	}
	if s.Default != nil {
		var v any
		if err := utiljson.Unmarshal(s.Default.Raw, &v); err == nil {
			return v, nil
		}
	}
	if len(s.Enum) > 0 {
		var v any
		if err := utiljson.Unmarshal(s.Enum[0].Raw, &v); err == nil {
			return v, nil
		}
	}
	switch s.Type {
	case "object", "":
		out := map[string]any{}
		for _, name := range s.Required {
			p, ok := s.Properties[name]
			if !ok {
				out[name] = "kbook"
				continue
			}
			val, err := minimal(p, path+"."+name, depth+1)
			if err != nil {
				return nil, err
			}
			out[name] = val
		}
		return out, nil
	case "array":
		n := 0
		if s.MinItems != nil {
			n = int(*s.MinItems)
		}
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			if s.Items == nil || s.Items.Schema == nil {
				return nil, fmt.Errorf("%s: array without item schema", path)
			}
			val, err := minimal(*s.Items.Schema, fmt.Sprintf("%s[%d]", path, i), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, val)
		}
		return out, nil
	case "string":
		switch s.Format {
		case "date-time":
			return "2026-01-01T00:00:00Z", nil
		case "ipv4":
			return "10.0.0.1", nil
		}
		n := 5
		if s.MinLength != nil && *s.MinLength > 5 {
			n = int(*s.MinLength)
		}
		return strings.Repeat("k", n), nil
	case "integer", "number":
		if s.Minimum != nil {
			return int64(*s.Minimum), nil
		}
		return int64(1), nil
	case "boolean":
		return false, nil
	}
	return nil, fmt.Errorf("%s: schema type %q", path, s.Type)
}
