package template

import (
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/yamldoc"
)

// vpath is a path into a values tree or an object: string keys and int
// list indexes.
type vpath = findings.Path

// parseYAML parses the first document of data for positions. It returns nil
// when data does not parse (the loaders report that).
func parseYAML(data []byte) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return nil
	}
	return doc.Content[0]
}

// lineOf finds the line of the value at p in the YAML tree n: the line of
// the key for map entries, of the item for list items. When p does not
// exist it returns the line of the deepest part that does (exact false).
func lineOf(n *yaml.Node, p vpath) (line int, exact bool) {
	_, line, exact = yamldoc.Lookup(n, p)
	return line, exact
}

// nodeAt returns the node at p, or nil.
func nodeAt(n *yaml.Node, p vpath) *yaml.Node {
	v, _, _ := yamldoc.Lookup(n, p)
	return v
}

// mapEntry finds key in a mapping node (the last one wins, as in YAML
// decoders; merge keys are followed).
func mapEntry(n *yaml.Node, key string) (k, v *yaml.Node) { return yamldoc.Entry(n, key) }

func deref(n *yaml.Node) *yaml.Node { return yamldoc.Deref(n) }

// mapValue returns the value of key in the mapping node n.
func mapValue(n *yaml.Node, key string) (*yaml.Node, bool) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, false
	}
	_, v := mapEntry(n, key)
	return v, v != nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
