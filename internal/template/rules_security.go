package template

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/kubesec"
	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Classes of kinds a cluster template must not render, by the SEC rule
// that reports them.
var securityKinds = map[schema.GroupKind]string{
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:                                ruleRBAC,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:                         ruleRBAC,
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:                         ruleRBAC,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:                  ruleRBAC,
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}:                 ruleAdmission,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}:   ruleAdmission,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:     ruleAdmission,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}:        ruleAdmission,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: ruleAdmission,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}:          ruleAdmission,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicyBinding"}:   ruleAdmission,
	{Group: "", Kind: "Pod"}:                   ruleWorkload,
	{Group: "", Kind: "ReplicationController"}: ruleWorkload,
	{Group: "apps", Kind: "Deployment"}:        ruleWorkload,
	{Group: "apps", Kind: "DaemonSet"}:         ruleWorkload,
	{Group: "apps", Kind: "StatefulSet"}:       ruleWorkload,
	{Group: "apps", Kind: "ReplicaSet"}:        ruleWorkload,
	{Group: "batch", Kind: "Job"}:              ruleWorkload,
	{Group: "batch", Kind: "CronJob"}:          ruleWorkload,
}

// securityClass returns the SEC rule that forbids a kind, or "".
func securityClass(gvk schema.GroupVersionKind) string {
	return securityKinds[gvk.GroupKind()]
}

// clusterScopedKinds are cluster-scoped kinds SEC001 knows without CRDs:
// Kubernetes' own, k0rdent's (the CRDs of kcm 1.11) and a few common ones.
var clusterScopedKinds = map[schema.GroupKind]bool{}

func init() {
	for group, kinds := range map[string][]string{
		"":                             {"Namespace", "Node", "PersistentVolume", "ComponentStatus"},
		"storage.k8s.io":               {"StorageClass", "CSIDriver", "CSINode", "VolumeAttachment", "VolumeAttributesClass"},
		"scheduling.k8s.io":            {"PriorityClass"},
		"node.k8s.io":                  {"RuntimeClass"},
		"networking.k8s.io":            {"IngressClass", "IPAddress", "ServiceCIDR"},
		"apiregistration.k8s.io":       {"APIService"},
		"certificates.k8s.io":          {"CertificateSigningRequest", "ClusterTrustBundle"},
		"flowcontrol.apiserver.k8s.io": {"FlowSchema", "PriorityLevelConfiguration"},
		"resource.k8s.io":              {"DeviceClass"},
		k0rdent.Group:                  k0rdent.ClusterScopedKinds,
		k0rdent.RuntimeGroup:           {"ExtensionConfig"},
		"cert-manager.io":              {"ClusterIssuer"},
	} {
		for _, k := range kinds {
			clusterScopedKinds[schema.GroupKind{Group: group, Kind: k}] = true
		}
	}
}

var securityWhy = map[string]string{
	ruleRBAC:      "RBAC objects rendered by a cluster template grant permissions in the management cluster, created with helm-controller's privileges for whoever may create a ClusterDeployment",
	ruleAdmission: "CRDs, admission webhooks and admission policies change the API of the whole management cluster; they belong to providers, not to a template installed once per cluster",
	ruleWorkload:  "workloads rendered by a cluster template run in the management cluster, next to kcm and the CAPI controllers; software for the new cluster belongs in ServiceTemplates",
}

// checkSecurity runs SEC001 to SEC006 on the rendered objects.
func (c *checker) checkSecurity(rs *renderedSet) {
	allowed := c.opts.Registries
	allowedFrom := "--registry"
	if len(allowed) == 0 {
		if g, ok := rs.values["global"].(map[string]any); ok {
			if r, ok := g["registry"].(string); ok && r != "" {
				allowed, allowedFrom = []string{r}, "global.registry"
			}
		}
	}
	for _, d := range rs.objs {
		gvk := d.obj.GroupVersionKind()
		if rule := securityClass(gvk); rule != "" {
			c.add(c.objFinding(rule, rs, d, "", fmt.Sprintf("%s %q: %s", gvk.Kind, d.obj.GetName(), securityWhy[rule])))
		} else if c.clusterScoped(gvk) {
			c.add(c.objFinding(ruleClusterScoped, rs, d, "",
				fmt.Sprintf("%s is cluster-scoped: a cluster template must only create namespaced objects in the ClusterDeployment's namespace (a cluster-scoped object is shared by every ClusterDeployment and changes the whole management cluster)", gvk.Kind)))
		}
		kubesec.PodIssues(d.obj.Object, func(is kubesec.Issue) {
			if is.Check != kubesec.LiteralCredential { // not a rule of templates
				c.add(c.objFinding(rulePodSecurity, rs, d, is.Path.String(), is.Path.String()+": "+is.Message))
			}
		})
		if len(allowed) > 0 {
			kubesec.Images(d.obj.Object, func(p vpath, key, image string) {
				if kubesec.RegistryAllowed(image, key, allowed) {
					return
				}
				c.add(c.objFinding(ruleRegistry, rs, d, p.String(),
					fmt.Sprintf("%s: image %q is from %s, not from an allowed registry (%s: %s)", p, image, kubesec.Registry(image, key), allowedFrom, strings.Join(allowed, ", "))))
			})
		}
	}
}

// clusterScoped tells the scope of a kind: from the CRDs when they know
// it, else from the built-in list.
func (c *checker) clusterScoped(gvk schema.GroupVersionKind) bool {
	if c.opts.Schemas != nil {
		if namespaced, known := c.opts.Schemas.Namespaced(gvk); known {
			return !namespaced
		}
	}
	return clusterScopedKinds[gvk.GroupKind()]
}

var (
	secretKeyRE = regexp.MustCompile(`(?i)(password|passwd|token|secret|apikey|privatekey)`)
	// Keys that name or point at a secret rather than hold one.
	secretRefSuffixRE = regexp.MustCompile(`(?i)(name|names|ref|namespace|file|path|enabled|type|kind|mode|length|ttl|dir|field|url|endpoint)$`)
)

// checkTemplateSources runs the rules on the chart's files rather than on
// rendered objects: SEC007 (secret defaults), SEC008 (lookup) and SEC003
// for the crds/ directory.
func (c *checker) checkTemplateSources() {
	// SEC007: non-empty defaults of secret-like keys in values.yaml.
	var walk func(n *yaml.Node, p vpath)
	walk = func(n *yaml.Node, p vpath) {
		n = deref(n)
		if n == nil {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], deref(n.Content[i+1])
				kp := p.Child(k.Value)
				if v.Kind == yaml.ScalarNode && v.Tag == "!!str" && v.Value != "" &&
					secretKeyRE.MatchString(k.Value) && !secretRefSuffixRE.MatchString(k.Value) {
					c.add(findings.Finding{Rule: ruleSecretDefault, File: "values.yaml", Line: k.Line, Path: kp.String(),
						Message: fmt.Sprintf("%s looks like a secret and has a default value: it ships in the chart, in the ClusterTemplate's status.config and in every cluster that does not override it; default it to \"\" and have users set it (or reference a Secret)", kp)})
					continue
				}
				walk(v, kp)
			}
		case yaml.SequenceNode:
			for i, e := range n.Content {
				walk(e, p.Child(i))
			}
		}
	}
	walk(c.src.node("values.yaml"), nil)

	c.checkLookups()

	// SEC003: CRDs in crds/, which Helm installs before the templates.
	for _, f := range c.src.chart.CRDObjects() {
		c.add(findings.Finding{Rule: ruleAdmission, File: strings.TrimPrefix(filepath.ToSlash(f.Filename), c.src.name()+"/"), Line: 1,
			Message: "the chart ships CustomResourceDefinitions in crds/: Helm installs them into the management cluster before the templates; " + securityWhy[ruleAdmission]})
	}
}

// checkLookups runs SEC008 on every lookup call of the chart's templates
// (dependencies included), graded by what it can read and whether the
// template checks the result: see the rule's description.
func (c *checker) checkLookups() {
	lookups, _ := c.templateCalls()
	for _, l := range lookups {
		f := findings.Finding{Rule: ruleLookup, File: l.file, Line: l.line}
		what := "objects"
		if l.kindKnown {
			what = l.kind + " objects"
		}
		gvk := schema.FromAPIVersionAndKind(l.apiVersion, l.kind)
		switch {
		case !l.kindKnown || !l.apiKnown:
			f.Message = "lookup's API version or kind is computed: the template can be made to read any kind the Helm release's service account (helm-controller, in the management cluster) may read; name the kind in the template"
		case l.ns == nsCluster && c.clusterScoped(gvk):
			f.Message = fmt.Sprintf("lookup reads the cluster-scoped %s %s from the management cluster: a cluster template must only depend on its own namespace; pass what it needs in values", l.kind, quoteOr(l.name, l.nameKnown, "(every one)"))
		case l.ns == nsCluster:
			f.Message = fmt.Sprintf("lookup with namespace \"\" reads %s in every namespace of the management cluster: look up in {{ .Release.Namespace }} only", what)
		case l.ns == nsOther:
			f.Message = fmt.Sprintf("lookup reads %s in namespace %q, outside the ClusterDeployment's namespace: a template installed by one team must not read another's objects; look up in {{ .Release.Namespace }} only", what, l.namespace)
		case l.ns == nsDynamic:
			f.Message = fmt.Sprintf("lookup reads %s in a namespace computed from values or variables, not {{ .Release.Namespace }}: a ClusterDeployment's config could point it at any namespace of the management cluster", what)
		case c.clusterScoped(gvk):
			f.Message = fmt.Sprintf("lookup reads %s, a cluster-scoped kind: a cluster template must only depend on its own namespace", l.kind)
		case !l.nameKnown || l.name != "":
			if l.guarded {
				continue // a checked read of one object of its own namespace: harmless
			}
			f.Severity = findings.Warning
			f.Message = fmt.Sprintf("the result of lookup (%s in the release namespace) is used without being checked: kcm's dry run (client-only, where lookup returns nothing), kbook and the real install render different objects; check it with if/with and let a value override it", what)
		default:
			f.Severity = findings.Warning
			f.Message = fmt.Sprintf("lookup with name \"\" lists every %s in the ClusterDeployment's namespace: look up the one object the template needs, by name", l.kind)
		}
		c.add(f)
	}
}

func quoteOr(s string, known bool, otherwise string) string {
	if !known {
		return "(a computed name)"
	}
	if s == "" {
		return otherwise
	}
	return fmt.Sprintf("%q", s)
}
