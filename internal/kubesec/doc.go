// Package kubesec reads what a security policy looks at in unstructured
// objects (pod specs, images and registries, RBAC rules), for template and
// provider validate alike.
//
// It reads the security-relevant parts of Kubernetes objects given as
// unstructured data (map[string]any, as rendered charts and decoded YAML
// give them), for every validator that applies a security policy: template
// validate's SEC rules on rendered objects and provider validate's on a
// provider's components.
//
//   - PodIssues finds what an embedded pod spec must not do (privileged or
//     escalating containers, added capabilities, host namespaces, hostPath
//     volumes, literal credentials in env), wherever the spec is: in a
//     Deployment or inside a custom resource.
//   - Images finds image references, Registry tells their registry and
//     RegistryAllowed matches them against an allow-list.
//   - Rules reads the rules of a Role or ClusterRole; PolicyRule.Grants
//     answers whether one allows a verb.
//
// Each result carries the findings.Path of the field, so callers turn it
// into a file and line their own way. Walk, the depth-first field walk
// the finders use, is exported for validators looking for other fields.
package kubesec
