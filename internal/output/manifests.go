package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// ManifestFormats are the -o values ManifestsAs takes; yaml, the first,
// is the default.
var ManifestFormats = []string{"yaml", "json"}

// ManifestsAs is Kubernetes objects, given as YAML documents, in format:
// yaml ("" too) as they are, json as kubectl prints several objects, a v1
// List of them (indented by two spaces, one newline after).
func ManifestsAs(format string, data []byte) ([]byte, error) {
	switch format {
	case "", "yaml":
		return data, nil
	case "json":
		items := []any{}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var obj map[string]any
			err := dec.Decode(&obj)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			if obj != nil {
				items = append(items, obj)
			}
		}
		var b bytes.Buffer
		err := Write(&b, format, map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, nil)
		return b.Bytes(), err
	}
	return nil, fmt.Errorf("output format %q: want yaml or json", format)
}
