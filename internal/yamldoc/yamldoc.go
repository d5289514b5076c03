package yamldoc

import (
	"bytes"
	"errors"
	"io"

	"go.yaml.in/yaml/v3"

	"github.com/k0rdent/kbook/internal/findings"
)

// Documents returns the root node of every document of data, the YAML
// file named file, in order, each with its line; an empty document (as
// between two "---") reads as a null scalar, which IsNull tells. YAML that does not parse is a
// *findings.InputError at file and the line of the error, its message
// prefix followed by the parser's.
func Documents(file string, data []byte, prefix string) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			line, msg := findings.YAMLError(data, err)
			return nil, findings.Inputf(file, line, "%s%s", prefix, msg)
		}
		if len(doc.Content) > 0 {
			out = append(out, doc.Content[0])
		}
	}
}

// Deref follows aliases to the node they name.
func Deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// IsNull reports whether n is missing or a null scalar.
func IsNull(n *yaml.Node) bool {
	n = Deref(n)
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// Lookup returns the node at p below n (aliases followed; nil when p does
// not exist) and the line of p: the line of the key for map entries, of
// the item for list items; when p does not exist, the line of its deepest
// part that does, with exact false.
func Lookup(n *yaml.Node, p findings.Path) (node *yaml.Node, line int, exact bool) {
	n = Deref(n)
	if n == nil {
		return nil, 0, false
	}
	line = n.Line
	for _, s := range p {
		n = Deref(n)
		if n == nil {
			return nil, line, false
		}
		switch s := s.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return nil, line, false
			}
			k, v := Entry(n, s)
			if k == nil {
				return nil, line, false
			}
			line, n = k.Line, v
		case int:
			if n.Kind != yaml.SequenceNode || s < 0 || s >= len(n.Content) {
				return nil, line, false
			}
			n = n.Content[s]
			line = n.Line
		default:
			return nil, line, false
		}
	}
	return Deref(n), line, true
}

// Entry finds key in the mapping node n: its key and value nodes, or nils.
// The last of duplicate keys wins; merge keys (<<) are followed when the
// mapping has no such key of its own.
func Entry(n *yaml.Node, key string) (k, v *yaml.Node) {
	n = Deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if kn := n.Content[i]; kn.Value == key && kn.Tag != "!!merge" {
			k, v = kn, n.Content[i+1]
		}
	}
	if k != nil {
		return k, v
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Tag != "!!merge" {
			continue
		}
		// << takes a mapping or a list of them; earlier ones win.
		m := Deref(n.Content[i+1])
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, src := range srcs {
			if mk, mv := Entry(src, key); mk != nil {
				return mk, mv
			}
		}
	}
	return nil, nil
}
