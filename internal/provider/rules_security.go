package provider

import (
	"encoding/base64"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/kubesec"
)

// podWhy and podHint complete kubesec's message of each pod check for a
// provider's controllers, which run on the management cluster.
var (
	podWhy = map[kubesec.Check]string{
		kubesec.HostNamespace:       "the controller shares the node's namespaces, next to kcm and the other providers on the management cluster",
		kubesec.HostPath:            "a provider controller has no business on the node's file system",
		kubesec.Privileged:          "a privileged controller owns the node it runs on, and the management cluster with it",
		kubesec.PrivilegeEscalation: "a process of the controller can gain more privileges than it started with",
		kubesec.Capability:          "the capability gives the controller power over the node",
		kubesec.LiteralCredential:   "it is readable by anyone who can read the object, and lands in logs and reports",
	}
	podHint = map[kubesec.Check]string{
		kubesec.HostNamespace:       "remove the host* setting",
		kubesec.HostPath:            "use a Secret, ConfigMap or emptyDir volume",
		kubesec.Privileged:          "drop privileged: true",
		kubesec.PrivilegeEscalation: "set allowPrivilegeEscalation: false",
		kubesec.Capability:          "drop added capabilities",
		kubesec.LiteralCredential:   "take it from a Secret: valueFrom.secretKeyRef",
	}
)

// checkSecurity runs the SEC rules on the provider's own components:
// RBAC (SEC101-SEC103), the pod specs of its workloads (SEC104), images
// (SEC105) and inlined credentials (SEC106). Pod specs and images are
// found as template validate finds them (kubesec), in any object but the
// CRDs, whose schemas are no instances.
func (c *checker) checkSecurity() {
	c.checkRBACSecurity()
	for _, o := range c.set.Objects {
		if o.Kind == "CustomResourceDefinition" {
			continue
		}
		obj := o.Fields()
		kubesec.PodIssues(obj, func(is kubesec.Issue) {
			rule, who := RulePodSecurity, ""
			if is.Check == kubesec.LiteralCredential {
				rule = RuleInlineCredentials
			}
			if is.Container != "" {
				who = "container " + is.Container + ": "
			}
			c.at(rule, o, is.Path, fmt.Sprintf("%s%s: %s", who, is.Message, podWhy[is.Check]), podHint[is.Check])
		})
		if len(c.opts.Registries) > 0 {
			kubesec.Images(obj, func(p findings.Path, key, image string) {
				if img, known := expandDefaults(image); known && !kubesec.RegistryAllowed(img, key, c.opts.Registries) {
					c.at(RuleRegistry, o, p, fmt.Sprintf("%s: image %s is from %s, not from an allowed registry (%s)", p, img, kubesec.Registry(img, key), strings.Join(c.opts.Registries, ", ")), "pull the image from an allowed registry (mirror it)")
				}
			})
		}
		if o.Kind == "Secret" && o.Group() == "" {
			c.checkSecret(o)
		}
	}
}

func (c *checker) checkSecret(o *Object) {
	for _, key := range []string{"data", "stringData"} {
		pairs(get(o.Root, key), func(k, v *yaml.Node) {
			if v == nil || v.Kind != yaml.ScalarNode || !kubesec.LooksLikeCredential(k.Value, v.Value) || emptyValue(key, v.Value) {
				return
			}
			c.at(RuleInlineCredentials, o, findings.Path{key, k.Value}, fmt.Sprintf("holds a literal %s value for %s: credentials shipped in the provider's components are the same in every installation and readable by anyone with the manifests", key, k.Value),
				"ship the Secret without data and have users create it (or a clusterctl variable ${...}), and reference it from the identity object")
		})
	}
}

// expandDefaults replaces clusterctl variables by their defaults, as
// clusterctl does when they are not set; known is false when a variable
// has no default (the value is then only known at install time).
func expandDefaults(v string) (string, bool) {
	known := true
	out := varRE.ReplaceAllStringFunc(v, func(m string) string {
		sm := varBodyRE.FindStringSubmatch(m[2 : len(m)-1])
		if sm == nil || sm[2] == "" {
			known = false
			return m
		}
		return sm[3]
	})
	return out, known
}

// emptyValue tells data values that hold no credential although
// kubesec.LooksLikeCredential cannot tell: base64 of whitespace (kcm's AWS
// chart ships Cg==, "\n", as a placeholder for AWS_B64ENCODED_CREDENTIALS)
// or of a clusterctl variable.
func emptyValue(key, v string) bool {
	dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	if err != nil {
		return false
	}
	d := strings.TrimSpace(string(dec))
	return d == "" || key == "data" && kubesec.IsPlaceholder(d)
}
