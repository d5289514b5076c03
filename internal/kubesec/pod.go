package kubesec

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
)

// Check names what a pod spec does that a security policy forbids.
type Check string

// The checks PodIssues makes.
const (
	// HostNamespace: hostNetwork, hostPID or hostIPC is true.
	HostNamespace Check = "host-namespace"
	// HostPath: a volume mounts a path of the node.
	HostPath Check = "host-path"
	// Privileged: a container's securityContext.privileged is true.
	Privileged Check = "privileged"
	// PrivilegeEscalation: securityContext.allowPrivilegeEscalation is true.
	PrivilegeEscalation Check = "privilege-escalation"
	// Capability: a container adds SYS_ADMIN, NET_ADMIN or ALL.
	Capability Check = "capability"
	// LiteralCredential: an environment variable named like a credential
	// has a literal value.
	LiteralCredential Check = "literal-credential"
)

// Issue is one thing a pod spec does that a policy forbids.
type Issue struct {
	Check Check
	// Path is the offending field (spec.template.spec.hostNetwork,
	// ...containers[0].securityContext.privileged).
	Path findings.Path
	// Container is the container's name, "" for pod-level issues.
	Container string
	// Message says what the spec does, without the object or path:
	// "the container runs privileged".
	Message string
}

// containerKeys are the pod spec's lists of containers.
var containerKeys = map[string]bool{"containers": true, "initContainers": true, "ephemeralContainers": true}

// dangerousCapabilities are the added capabilities reported.
var dangerousCapabilities = map[string]bool{"SYS_ADMIN": true, "NET_ADMIN": true, "ALL": true}

// PodIssues reports, in field order, what the pod specs embedded anywhere
// in obj do that a security policy forbids. Pod specs are found by their
// keys (containers, initContainers, ephemeralContainers, volumes, the
// host* flags) at any depth, so pod templates inside custom resources
// count as much as a Deployment's; a CRD's schema, whose fields have
// these names but hold schemas, matches nothing.
func PodIssues(obj map[string]any, report func(Issue)) {
	Walk(obj, func(p findings.Path, key string, v any) bool {
		switch {
		case key == "hostNetwork" || key == "hostPID" || key == "hostIPC":
			if b, _ := v.(bool); b {
				report(Issue{Check: HostNamespace, Path: p, Message: key + " is true: the pod shares the host's namespaces"})
			}
		case key == "volumes":
			l, _ := v.([]any)
			for i, e := range l {
				if vm, ok := e.(map[string]any); ok && vm["hostPath"] != nil {
					report(Issue{Check: HostPath, Path: p.Child(i, "hostPath"), Message: "the volume mounts a path of the host"})
				}
			}
		case containerKeys[key]:
			l, _ := v.([]any)
			for i, e := range l {
				if cm, ok := e.(map[string]any); ok {
					containerIssues(cm, p.Child(i), report)
				}
			}
			return true
		}
		return false
	})
}

func containerIssues(c map[string]any, p findings.Path, report func(Issue)) {
	name, _ := c["name"].(string)
	add := func(check Check, p findings.Path, msg string) {
		report(Issue{Check: check, Path: p, Container: name, Message: msg})
	}
	sc := p.Child("securityContext")
	if b, _ := nested(c, "securityContext", "privileged").(bool); b {
		add(Privileged, sc.Child("privileged"), "the container runs privileged")
	}
	if b, _ := nested(c, "securityContext", "allowPrivilegeEscalation").(bool); b {
		add(PrivilegeEscalation, sc.Child("allowPrivilegeEscalation"), "the container allows privilege escalation")
	}
	l, _ := nested(c, "securityContext", "capabilities", "add").([]any)
	for i, e := range l {
		if s, _ := e.(string); dangerousCapabilities[s] {
			add(Capability, sc.Child("capabilities", "add", i), "the container adds capability "+s)
		}
	}
	env, _ := c["env"].([]any)
	for i, e := range env {
		m, _ := e.(map[string]any)
		n, _ := m["name"].(string)
		if val, _ := m["value"].(string); LooksLikeCredential(n, val) {
			add(LiteralCredential, p.Child("env", i, "value"), fmt.Sprintf("environment variable %s holds a literal value that looks like a credential", n))
		}
	}
}

var (
	credentialNameRE = regexp.MustCompile(`(?i)(password|passwd|token|secret|api_?key|private_?key|credentials?|access_?key)`)
	// placeholderRE: a clusterctl variable, replaced at install time.
	placeholderRE = regexp.MustCompile(`^\$\{[^}]*\}$`)
)

// LooksLikeCredential tells whether a value named name is a literal
// credential: the name says password, token, secret, API or access key,
// private key or credentials, without naming a reference to one (_FILE,
// _PATH, _NAME, _REF, _NAMESPACE, _DIR, _ENABLED, _URL), and the value is
// neither empty nor a clusterctl variable (${VAR}).
func LooksLikeCredential(name, value string) bool {
	v := strings.TrimSpace(value)
	return v != "" && !IsPlaceholder(v) && credentialNameRE.MatchString(name) && !NamesReference(name)
}

// IsPlaceholder tells whether a value is a clusterctl variable, ${VAR} or
// ${VAR:=default}: clusterctl replaces it at install time.
func IsPlaceholder(v string) bool { return placeholderRE.MatchString(v) }

// NamesReference tells names that mention a credential without holding
// one: a file, path, name, reference, namespace, directory, switch or URL.
func NamesReference(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"_file", "_path", "_name", "_ref", "_namespace", "_dir", "_enabled", "_url"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}
