package findings

import (
	"fmt"
	"regexp"
	"strings"
)

// Path is the position of a value inside a YAML or JSON document: string
// keys and int list indexes. Validators use it for Finding.Path, for
// values paths (controlPlane.replicas, workers[0].name) and object fields
// (spec.versions[1].schema.openAPIV3Schema) alike.
type Path []any

// String formats the path as users write values paths and kubectl explain
// spells fields: a.b[0].c; keys that are not plain identifiers are quoted:
// metadata.labels["cluster.x-k8s.io/v1beta2"].
func (p Path) String() string {
	var sb strings.Builder
	for i, s := range p {
		switch s := s.(type) {
		case int:
			fmt.Fprintf(&sb, "[%d]", s)
		case string:
			if plainKey.MatchString(s) {
				if i > 0 {
					sb.WriteByte('.')
				}
				sb.WriteString(s)
			} else {
				fmt.Fprintf(&sb, "[%q]", s)
			}
		}
	}
	return sb.String()
}

var plainKey = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

// Child returns p extended by keys or indexes; p itself is not modified
// (siblings built from one parent never share storage).
func (p Path) Child(s ...any) Path { return append(p[:len(p):len(p)], s...) }

// HasPrefix reports whether p is q or below it.
func (p Path) HasPrefix(q Path) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}
