// Package yamldoc reads YAML as kbook's validators do: every document of
// a multi-document file with the line it starts on (a document that does
// not parse is a findings.InputError at its file and line), and the node
// and line at a path below a node.
//
// On duplicate keys the last one wins, as the readers of these files do:
// sigs.k8s.io/yaml (kubectl, the API server's YAML, Helm's values) turns
// YAML into JSON, and encoding/json keeps the last value of a repeated
// key. Merge keys (<<) are followed; keys of the mapping itself win over
// merged ones.
package yamldoc
