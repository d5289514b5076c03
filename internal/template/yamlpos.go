package template

import (
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/k0rdent/kbook/internal/findings"
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
	if n == nil {
		return 0, false
	}
	line = n.Line
	for _, s := range p {
		n = deref(n)
		switch s := s.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return line, false
			}
			k, v := mapEntry(n, s)
			if k == nil {
				return line, false
			}
			line, n = k.Line, v
		case int:
			if n.Kind != yaml.SequenceNode || s < 0 || s >= len(n.Content) {
				return line, false
			}
			n = n.Content[s]
			line = n.Line
		}
	}
	return line, true
}

// nodeAt returns the node at p, or nil.
func nodeAt(n *yaml.Node, p vpath) *yaml.Node {
	for _, s := range p {
		if n == nil {
			return nil
		}
		n = deref(n)
		switch s := s.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return nil
			}
			_, n = mapEntry(n, s)
		case int:
			if n.Kind != yaml.SequenceNode || s < 0 || s >= len(n.Content) {
				return nil
			}
			n = n.Content[s]
		}
	}
	if n != nil {
		n = deref(n)
	}
	return n
}

// mapEntry finds key in a mapping node (the last one wins, as in YAML
// decoders; merge keys are followed).
func mapEntry(n *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn := n.Content[i]
		if kn.Value == key && kn.Tag != "!!merge" {
			k, v = kn, n.Content[i+1]
		}
	}
	if k != nil {
		return k, v
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Tag == "!!merge" {
			if m := deref(n.Content[i+1]); m.Kind == yaml.MappingNode {
				if mk, mv := mapEntry(m, key); mk != nil {
					return mk, mv
				}
			}
		}
	}
	return nil, nil
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

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
