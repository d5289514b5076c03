package provider

import (
	"go.yaml.in/yaml/v3"

	"github.com/k0rdent/kbook/internal/yamldoc"
)

// at returns the node at p below n (nil when it does not exist), and the
// line of the deepest part of p that exists, for findings about missing
// fields.
func at(n *yaml.Node, p ...any) (*yaml.Node, int) {
	v, line, _ := yamldoc.Lookup(n, p)
	return v, line
}

// get is at without the line.
func get(n *yaml.Node, p ...any) *yaml.Node {
	v, _ := at(n, p...)
	return v
}

// str returns the scalar string at p, or "".
func str(n *yaml.Node, p ...any) string {
	v := get(n, p...)
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return ""
	}
	return v.Value
}

// pairs calls fn for each key/value of a mapping node, in order.
func pairs(n *yaml.Node, fn func(k, v *yaml.Node)) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		fn(n.Content[i], deref(n.Content[i+1]))
	}
}

// items returns the items of a sequence node (nil for anything else).
func items(n *yaml.Node) []*yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = deref(c)
	}
	return out
}

// stringMap returns a mapping of scalars as a Go map.
func stringMap(n *yaml.Node) map[string]string {
	out := map[string]string{}
	pairs(n, func(k, v *yaml.Node) {
		if v != nil && v.Kind == yaml.ScalarNode {
			out[k.Value] = v.Value
		}
	})
	return out
}

func deref(n *yaml.Node) *yaml.Node { return yamldoc.Deref(n) }
