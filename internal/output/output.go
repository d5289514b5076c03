package output

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// Formats are the -o values Write takes; text, the first, is the default.
var Formats = []string{"text", "json", "yaml"}

// Write writes v as format: json (indented by two spaces, one newline
// after), yaml, or text by calling text ("" is text too).
func Write(w io.Writer, format string, v any, text func(io.Writer) error) error {
	switch format {
	case "", "text":
		return text(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "yaml":
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	return fmt.Errorf("output format %q: want text, json or yaml", format)
}
