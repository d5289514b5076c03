package provider

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"go.yaml.in/yaml/v3"
)

// workloadKinds are the kinds that embed a pod template, and where.
var workloadKinds = map[string]findings.Path{
	"/Pod":                   {"spec"},
	"apps/Deployment":        {"spec", "template", "spec"},
	"apps/DaemonSet":         {"spec", "template", "spec"},
	"apps/StatefulSet":       {"spec", "template", "spec"},
	"apps/ReplicaSet":        {"spec", "template", "spec"},
	"batch/Job":              {"spec", "template", "spec"},
	"batch/CronJob":          {"spec", "jobTemplate", "spec", "template", "spec"},
	"/ReplicationController": {"spec", "template", "spec"},
}

var (
	secretNameRE = regexp.MustCompile(`(?i)(password|passwd|token|secret|api_?key|private_?key|credentials?|access_?key)`)
	// values that are not literal secrets: clusterctl variables and empty.
	placeholderRE = regexp.MustCompile(`^\$\{[^}]*\}$`)
)

// checkSecurity runs the SEC rules on the provider's own components:
// RBAC (SEC101-SEC103), controller pods (SEC104), images (SEC105) and
// inlined credentials (SEC106).
func (c *checker) checkSecurity() {
	c.checkRBACSecurity()
	for _, o := range c.set.Objects {
		if p, ok := workloadKinds[o.Group()+"/"+o.Kind]; ok {
			c.checkPodSpec(o, p)
		}
		if o.Kind == "Secret" && o.Group() == "" {
			c.checkSecret(o)
		}
	}
}

func (c *checker) checkPodSpec(o *Object, p findings.Path) {
	spec := get(o.Root, p...)
	if spec == nil {
		return
	}
	for _, k := range []string{"hostNetwork", "hostPID", "hostIPC"} {
		if str(spec, k) == "true" {
			c.at(RulePodSecurity, o, p.Child(k), fmt.Sprintf("%s sets %s: the controller shares the node's namespaces, next to kcm and the other providers on the management cluster", o.ID(), k), "remove "+k)
		}
	}
	for i, v := range items(get(spec, "volumes")) {
		if get(v, "hostPath") != nil {
			c.at(RulePodSecurity, o, p.Child("volumes").Child(i).Child("hostPath"), fmt.Sprintf("%s mounts a hostPath volume (%s): a provider controller has no business on the node's file system", o.ID(), str(v, "hostPath", "path")), "use a Secret, ConfigMap or emptyDir volume")
		}
	}
	for _, key := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for i, ct := range items(get(spec, key)) {
			cp := p.Child(key).Child(i)
			if str(ct, "securityContext", "privileged") == "true" {
				c.at(RulePodSecurity, o, cp.Child("securityContext").Child("privileged"), fmt.Sprintf("%s: container %s runs privileged", o.ID(), str(ct, "name")), "drop privileged: true")
			}
			if str(ct, "securityContext", "allowPrivilegeEscalation") == "true" {
				c.at(RulePodSecurity, o, cp.Child("securityContext").Child("allowPrivilegeEscalation"), fmt.Sprintf("%s: container %s allows privilege escalation", o.ID(), str(ct, "name")), "set allowPrivilegeEscalation: false")
			}
			for _, capab := range stringList(get(ct, "securityContext", "capabilities", "add")) {
				if capab == "SYS_ADMIN" || capab == "NET_ADMIN" || capab == "ALL" {
					c.at(RulePodSecurity, o, cp.Child("securityContext").Child("capabilities").Child("add"), fmt.Sprintf("%s: container %s adds capability %s", o.ID(), str(ct, "name"), capab), "drop added capabilities")
				}
			}
			if img, known := expandDefaults(str(ct, "image")); img != "" && known && len(c.opts.Registries) > 0 && !registryAllowed(img, c.opts.Registries) {
				c.at(RuleRegistry, o, cp.Child("image"), fmt.Sprintf("%s: container %s image %s is not from an allowed registry (%s)", o.ID(), str(ct, "name"), img, strings.Join(c.opts.Registries, ", ")), "pull the image from an allowed registry (mirror it)")
			}
			for j, env := range items(get(ct, "env")) {
				name, val := str(env, "name"), get(env, "value")
				if val != nil && val.Value != "" && secretNameRE.MatchString(name) && !placeholderRE.MatchString(val.Value) && !notSecretValue(name) {
					c.at(RuleInlineCredentials, o, cp.Child("env").Child(j).Child("value"), fmt.Sprintf("%s: environment variable %s of container %s holds a literal value that looks like a credential: it is readable by anyone who can read the Deployment, and lands in logs and reports", o.ID(), name, str(ct, "name")),
						"take it from a Secret: valueFrom.secretKeyRef")
				}
			}
		}
	}
}

// notSecretValue: names that mention secrets without holding one.
func notSecretValue(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"_file", "_path", "_name", "_ref", "_namespace", "_dir", "_enabled", "_url"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

func (c *checker) checkSecret(o *Object) {
	for _, key := range []string{"data", "stringData"} {
		pairs(get(o.Root, key), func(k, v *yaml.Node) {
			if v == nil || v.Kind != yaml.ScalarNode || !secretNameRE.MatchString(k.Value) || notSecretValue(k.Value) || emptyValue(key, v.Value) {
				return
			}
			c.at(RuleInlineCredentials, o, findings.Path{key, k.Value}, fmt.Sprintf("Secret %s holds a literal %s value for %s: credentials shipped in the provider's components are the same in every installation and readable by anyone with the manifests", o.Name, key, k.Value),
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

// emptyValue tells values that hold no credential: empty, a clusterctl
// variable, or base64 of whitespace (kcm's AWS chart ships Cg==, "\n",
// as a placeholder for AWS_B64ENCODED_CREDENTIALS).
func emptyValue(key, v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || placeholderRE.MatchString(v) {
		return true
	}
	dec, err := base64.StdEncoding.DecodeString(v)
	if err == nil && strings.TrimSpace(string(dec)) == "" {
		return true
	}
	if key == "data" && err == nil && placeholderRE.MatchString(strings.TrimSpace(string(dec))) {
		return true
	}
	return false
}

// registryAllowed: an allowed entry is a registry host or a repository
// prefix; images without a registry are docker.io.
func registryAllowed(image string, allowed []string) bool {
	full := image
	first, _, found := strings.Cut(image, "/")
	if !found || !(strings.ContainsAny(first, ".:") || first == "localhost") {
		if !found {
			full = "docker.io/library/" + image
		} else {
			full = "docker.io/" + image
		}
	}
	for _, a := range allowed {
		a = strings.TrimSuffix(strings.TrimPrefix(a, "oci://"), "/")
		if a != "" && (full == a || strings.HasPrefix(full, a+"/") || strings.HasPrefix(full, a+":") || strings.HasPrefix(full, a+"@")) {
			return true
		}
	}
	return false
}
