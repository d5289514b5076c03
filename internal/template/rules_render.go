package template

import (
	"fmt"
	"slices"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/helmvalues"
	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/kubesec"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// renderedSet is what one value set rendered to.
type renderedSet struct {
	vs     *valueSet
	docs   []renderedDoc // objects and documents that are not
	objs   []renderedDoc // objects only
	values map[string]any
}

// checkRenderings renders the chart with every value set and runs the
// rendering rules on each. When the defaults do not render only because a
// template requires a value they leave empty (Helm's required), that is
// reported once (RENDER011, info) and, if no ci/*.yaml or --config set
// supplies real values, the defaults are rendered again with placeholders
// for the required values so that the rendering rules still run. A chart
// that renders with no value set at all keeps its RENDER001 findings even
// when RENDER001 is disabled: nothing else could be checked.
func (c *checker) checkRenderings(sets []*valueSet) {
	for i, vs := range sets {
		r := c.src.render(injectValues(vs.values, c.src.chart.Values, c.opts.Namespace), c.opts.ReleaseName, c.opts.Namespace)
		if i == 0 && r.err != nil {
			if req := c.requiredAt(r.err); req != nil {
				if len(sets) > 1 {
					c.add(findings.Finding{Rule: ruleRequiredValues, File: req.file, Line: req.line, Path: req.path.String(), Config: vs.name,
						Message: fmt.Sprintf("the defaults do not render: the template requires %s, which values.yaml leaves empty; a ClusterDeployment without it fails kcm's dry run (HelmChartReady false); rendering was checked with %s", describeRequired(req), strings.Join(setNames(sets[1:]), ", "))})
					continue
				}
				vs, r = c.withPlaceholders(vs, r)
			}
		}
		if c.checkRendered(vs, r) {
			c.renderedAny = true
		}
	}
}

func setNames(sets []*valueSet) []string {
	var out []string
	for _, vs := range sets {
		out = append(out, vs.name)
	}
	return out
}

func describeRequired(r *requiredCall) string {
	if len(r.path) == 0 {
		return "a value (Helm's required)"
	}
	return r.path.String()
}

// requiredAt returns the required call that made a rendering fail, or nil
// when the error is not from one.
func (c *checker) requiredAt(f *findings.Finding) *requiredCall {
	if !strings.Contains(f.Message, "execution error at") {
		return nil
	}
	_, requireds := c.templateCalls()
	for i := range requireds {
		if requireds[i].file == f.File && requireds[i].line == f.Line {
			return &requireds[i]
		}
	}
	return nil
}

// placeholdersName names the value set of the defaults with placeholders
// for required values, in findings found with it.
const placeholdersName = "placeholders"

// maxPlaceholders bounds the renderings that discover required values one
// at a time (each failing render names one).
const maxPlaceholders = 32

// withPlaceholders renders the defaults again and again, filling in each
// value a required call asks for with a placeholder (from the schema: its
// first example, enum value or default, else a value of its type), and
// reports the values the chart needs (RENDER011). It returns the value
// set and rendering to check: the placeholder set when it renders or gets
// further, with the failure for RENDER001 otherwise.
func (c *checker) withPlaceholders(vs *valueSet, r rendering) (*valueSet, rendering) {
	vals := helmvalues.DeepCopy(vs.values)
	var needs []string
	var first *requiredCall
	for range maxPlaceholders {
		req := c.requiredAt(r.err)
		if req == nil || len(req.path) == 0 || !settable(req.path) || lookupPath(vals, req.path) != nil {
			break
		}
		if first == nil {
			first = req
		}
		ph := c.placeholder(req.path)
		setPath(vals, req.path, ph)
		needs = append(needs, fmt.Sprintf("%s (%s:%d)", req.path, req.file, req.line))
		r = c.src.render(injectValues(vals, c.src.chart.Values, c.opts.Namespace), c.opts.ReleaseName, c.opts.Namespace)
		if r.err == nil {
			break
		}
	}
	if first == nil {
		return vs, r
	}
	how := "the rendering rules ran with placeholders for them"
	if r.err != nil {
		how = "even with placeholders for them the chart does not render (see RENDER001)"
	}
	c.add(findings.Finding{Rule: ruleRequiredValues, File: first.file, Line: first.line, Path: first.path.String(), Config: vs.name,
		Message: fmt.Sprintf("the chart requires values its defaults leave empty: %s; a ClusterDeployment must set them in spec.config (without them kcm's dry run fails: HelmChartReady false); %s", strings.Join(needs, ", "), how),
		Hint:    "check the chart with real values: kbook template validate --config clusterdeployment.yaml, or add example configs as ci/*.yaml"})
	return &valueSet{name: placeholdersName, file: "values.yaml", values: vals, node: vs.node}, r
}

// settable reports whether a values path is made of map keys only.
func settable(p vpath) bool {
	for _, s := range p {
		if _, ok := s.(string); !ok {
			return false
		}
	}
	return true
}

// setPath sets the value at p, creating maps on the way.
func setPath(m map[string]any, p vpath, v any) {
	for i, s := range p {
		k := s.(string)
		if i == len(p)-1 {
			m[k] = v
			return
		}
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
}

// placeholder is a stand-in for a required value: the schema's first
// example, enum value or non-empty default at the path, else a value of
// the schema's type ("kbook-placeholder" for strings and when unknown).
func (c *checker) placeholder(p vpath) any {
	sch := c.valuesSchemaAt(p)
	if ex, ok := sch["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	if en, ok := sch["enum"].([]any); ok && len(en) > 0 {
		return en[0]
	}
	if d, ok := sch["default"]; ok && d != nil && d != "" {
		return d
	}
	switch sch["type"] {
	case "integer", "number":
		if m, ok := sch["minimum"].(float64); ok && m > 1 {
			return m
		}
		return 1
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return "kbook-placeholder"
}

// checkRendered runs the RENDER, SCHEMA, SEC and POLICY rules on a
// rendering of the chart with a value set, as kcm would render it for a
// ClusterDeployment. It reports false when the chart did not render.
func (c *checker) checkRendered(vs *valueSet, r rendering) bool {
	if r.err != nil {
		f := *r.err
		f.Rule, f.Config = ruleRender, vs.name
		f.Message = "the chart does not render: " + f.Message
		c.add(f)
		return false
	}
	rs := &renderedSet{vs: vs, docs: r.docs, values: r.values}
	for _, d := range r.docs {
		if d.obj == nil {
			c.add(findings.Finding{Rule: ruleRenderParse, File: d.template, Config: vs.name,
				Message: fmt.Sprintf("rendered document %d %s", d.index+1, d.err)})
			continue
		}
		rs.objs = append(rs.objs, d)
	}

	// A second rendering, under another release name and namespace, and
	// without the global values kcm injects only when it runs with a
	// global registry or k0s URL (fillHelmValues).
	otherVals := injectValues(vs.values, c.src.chart.Values, otherNamespace)
	if _, own := vs.values["global"]; !own {
		delete(otherVals, "global")
	}
	other := c.src.render(otherVals, otherReleaseName, otherNamespace)
	if other.err != nil {
		f := *other.err
		f.Rule, f.Config = ruleRender, vs.name
		f.Message = "the chart does not render when kcm runs without a global registry or k0s URL (kcm then injects no global values; give global a default in values.yaml): " + f.Message
		c.add(f)
	}
	c.checkNamespaces(rs, other.docs)
	c.checkReleaseNames(rs, other.docs)
	c.checkCluster(rs)
	c.checkRefs(rs)
	c.checkProviderGroups(rs)
	c.checkContractVersions(rs)
	c.checkDurations(rs)
	c.checkSchemas(rs)
	c.checkSecurity(rs)
	c.checkObjectPolicies(rs)
	return true
}

// objFinding is a finding about a rendered object.
func (c *checker) objFinding(rule string, rs *renderedSet, d renderedDoc, path, msg string) findings.Finding {
	return findings.Finding{Rule: rule, File: d.template, Line: c.templateLine(d, path), Path: path,
		Object: objectName(d.obj), Config: rs.vs.name, Message: msg}
}

// templateLine finds the line of a rendered field in the template source,
// best effort (rendered output has no line mapping back to the template):
// it follows the field path through the YAML keys of the template's text,
// each key one of the previous key's own (not deeper) keys, within the document that
// rendered the object, and returns the line of the deepest key it finds;
// with no path, or when not even the first key is found, the line of the
// document's kind. 0 when the template's text does not show the object.
func (c *checker) templateLine(d renderedDoc, path string) int {
	src, ok := c.src.raw[d.template]
	if !ok {
		return 0
	}
	lines := strings.Split(string(src), "\n")
	// The document's first line: count literal separators when the
	// template has one per rendered document.
	start := 0
	if d.index > 0 {
		n := 0
		for i, l := range lines {
			if strings.HasPrefix(l, "---") {
				n++
				if n == d.index {
					start = i + 1
					break
				}
			}
		}
	}
	end := len(lines)
	for i := start; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "---") && i > start {
			end = i
			break
		}
	}
	best := 0
	if path != "" {
		parent, pos := -1, start
		for _, seg := range strings.Split(path, ".") {
			if i := strings.IndexByte(seg, '['); i >= 0 {
				seg = seg[:i]
			}
			found := false
			child := -1 // the column of the parent's keys
			for i := pos; i < end; i++ {
				key, indent, ok := yamlKey(lines[i])
				if !ok {
					continue
				}
				if indent <= parent {
					break // left the parent's block
				}
				if child < 0 {
					child = indent
				}
				if indent != child {
					continue // a key further down (spec.template.spec.clusterName is no spec.clusterName)
				}
				if key == seg {
					parent, pos, best, found = indent, i+1, i+1, true
					break
				}
			}
			if !found {
				break
			}
		}
	}
	if best > 0 {
		return best
	}
	for i := start; i < end; i++ {
		if key, indent, ok := yamlKey(lines[i]); ok && key == "kind" && indent == 0 {
			return i + 1
		}
	}
	return 0
}

// yamlKey reads the key of a "key:" line of a template and its column
// ("- key:" list items count from the key). Template actions, comments and
// other lines are not keys.
func yamlKey(line string) (key string, indent int, ok bool) {
	t := strings.TrimLeft(line, " ")
	indent = len(line) - len(t)
	for strings.HasPrefix(t, "- ") {
		t = strings.TrimLeft(t[2:], " ")
		indent = len(line) - len(t)
	}
	if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "{{") {
		return "", 0, false
	}
	k, _, found := strings.Cut(t, ":")
	if !found || strings.ContainsAny(k, " {}\"'") {
		return "", 0, false
	}
	return k, indent, true
}

// pair matches a document of the second rendering to one of the first: the
// same template and position.
func pair(docs []renderedDoc, d renderedDoc) *renderedDoc {
	for i := range docs {
		if docs[i].template == d.template && docs[i].index == d.index && docs[i].obj != nil {
			return &docs[i]
		}
	}
	return nil
}

// checkNamespaces runs RENDER003: objects leave metadata.namespace out or
// use the release namespace.
func (c *checker) checkNamespaces(rs *renderedSet, other []renderedDoc) {
	for _, d := range rs.objs {
		ns := d.obj.GetNamespace()
		fixed := ""
		switch {
		case ns != "" && ns != c.opts.Namespace:
			fixed = ns
		case ns == c.opts.Namespace:
			// Derived from the release, or hard-coded to the namespace
			// rendered with? The other rendering tells.
			if o := pair(other, d); o != nil && o.obj.GetNamespace() == ns {
				fixed = ns
			}
		}
		if fixed != "" {
			c.add(c.objFinding(ruleRenderNamespace, rs, d, "metadata.namespace",
				fmt.Sprintf("metadata.namespace is fixed to %q: kcm installs the chart into the ClusterDeployment's namespace; leave the namespace out or use {{ .Release.Namespace }}", fixed)))
		}
	}
}

// checkReleaseNames runs RENDER008: object names change with the release
// name.
func (c *checker) checkReleaseNames(rs *renderedSet, other []renderedDoc) {
	for _, d := range rs.objs {
		o := pair(other, d)
		if o == nil || d.obj.GetName() == "" || o.obj.GetName() != d.obj.GetName() {
			continue
		}
		c.add(c.objFinding(ruleReleaseName, rs, d, "metadata.name",
			fmt.Sprintf("the name %q does not derive from the release name: two ClusterDeployments of this template in one namespace would both create %s %q and collide; build it from {{ .Release.Name }}", d.obj.GetName(), d.obj.GetKind(), d.obj.GetName())))
	}
}

func isCAPICluster(u *unstructured.Unstructured) bool {
	return u.GroupVersionKind().Group == k0rdent.CAPIGroup && u.GetKind() == k0rdent.KindCluster
}

// checkCluster runs RENDER004 (one Cluster), RENDER009 (named after the
// release) and RENDER010 (deprecated core API).
func (c *checker) checkCluster(rs *renderedSet) {
	var clusters []renderedDoc
	for _, d := range rs.objs {
		gv := d.obj.GroupVersionKind()
		if gv.Group == k0rdent.CAPIGroup && gv.Version == "v1beta1" {
			c.add(c.objFinding(ruleDeprecatedAPI, rs, d, "apiVersion",
				fmt.Sprintf("%s/v1beta1 is deprecated: use %s/v1beta2 (references become {apiGroup, kind, name})", k0rdent.CAPIGroup, k0rdent.CAPIGroup)))
		}
		if isCAPICluster(d.obj) || isSveltosCluster(d.obj) {
			clusters = append(clusters, d)
		}
	}
	adopted := c.adopted()
	switch {
	case len(clusters) == 0 && adopted:
		c.add(findings.Finding{Rule: ruleOneCluster, File: "templates/", Config: rs.vs.name,
			Message: fmt.Sprintf("no SveltosCluster (%s) is rendered: a template for %s, kcm's built-in provider for adopted clusters, adopts an existing cluster through exactly one SveltosCluster", k0rdent.SveltosGroup, k0rdent.InternalProvider)})
	case len(clusters) == 0:
		c.add(findings.Finding{Rule: ruleOneCluster, File: "templates/", Config: rs.vs.name,
			Message: "no CAPI Cluster (cluster.x-k8s.io) is rendered: a ClusterTemplate must render exactly one (or, to adopt an existing cluster with infrastructure-internal, one SveltosCluster)"})
	case len(clusters) > 1:
		for _, d := range clusters[1:] {
			c.add(c.objFinding(ruleOneCluster, rs, d, "",
				fmt.Sprintf("%d cluster objects are rendered: a ClusterTemplate deploys exactly one cluster (the first is %s in %s)", len(clusters), objectName(clusters[0].obj), clusters[0].template)))
		}
	}
	for _, d := range clusters {
		switch sveltos := isSveltosCluster(d.obj); {
		case adopted && !sveltos:
			c.add(c.objFinding(ruleOneCluster, rs, d, "",
				fmt.Sprintf("the template declares %s, kcm's built-in provider for adopted clusters, but renders a CAPI Cluster, which needs a CAPI infrastructure provider: adopt the cluster with a SveltosCluster, or declare the provider that provisions it", k0rdent.InternalProvider)))
		case !adopted && sveltos:
			c.add(c.objFinding(ruleOneCluster, rs, d, "",
				fmt.Sprintf("a SveltosCluster adopts an existing cluster: the only infrastructure provider of such a template is %s (kcm's built-in one), not %s", k0rdent.InternalProvider, strings.Join(c.providers, ", "))))
		}
		if d.obj.GetName() != c.opts.ReleaseName {
			c.add(c.objFinding(ruleClusterName, rs, d, "metadata.name",
				fmt.Sprintf("the %s is named %q, not after the ClusterDeployment (%q): kcm looks it up by the ClusterDeployment's name; use name: {{ .Release.Name }}", d.obj.GetKind(), d.obj.GetName(), c.opts.ReleaseName)))
		}
	}
}

// adopted reports whether the template adopts an existing cluster: its
// only infrastructure provider is kcm's built-in infrastructure-internal.
func (c *checker) adopted() bool {
	infra := 0
	internal := false
	for _, p := range c.providers {
		if strings.HasPrefix(p, k0rdent.InfrastructureProviderPrefix) {
			infra++
			internal = internal || p == k0rdent.InternalProvider
		}
	}
	return internal && infra == 1
}

func isSveltosCluster(u *unstructured.Unstructured) bool {
	return u.GroupVersionKind().Group == k0rdent.SveltosGroup && u.GetKind() == k0rdent.KindSveltosCluster
}

// ref is an object reference found in a rendered object.
type ref struct {
	key, path                  string // the field name and its path
	apiGroup, apiVersion, kind string
	name, namespace            string
	hasAPIGroup, hasAPIVersion bool
}

// refKeys are the fields that hold references to objects the template
// should render; format-checked ones are the CAPI contract references.
func isRefKey(k string) bool {
	switch k {
	case "infrastructureRef", "controlPlaneRef", "configRef", "templateRef":
		return true
	}
	return strings.HasSuffix(k, "TemplateRef")
}

func isContractRefKey(k string) bool {
	return k == "infrastructureRef" || k == "controlPlaneRef" || k == "configRef"
}

// coreRefKinds are the CAPI kinds whose reference types RENDER006 knows:
// ContractVersionedObjectReference {apiGroup, kind, name} in v1beta2,
// ObjectReference in v1beta1 (CAPI v1.14 CRDs).
var coreRefKinds = map[schema.GroupKind]bool{
	{Group: k0rdent.CAPIGroup, Kind: k0rdent.KindCluster}:           true,
	{Group: k0rdent.CAPIGroup, Kind: "MachineDeployment"}:           true,
	{Group: k0rdent.CAPIGroup, Kind: "MachineSet"}:                  true,
	{Group: k0rdent.CAPIGroup, Kind: "Machine"}:                     true,
	{Group: k0rdent.CAPIGroup, Kind: "MachinePool"}:                 true,
	{Group: k0rdent.ControlPlaneGroup, Kind: "KubeadmControlPlane"}: true,
}

// findRefs walks an object (but not its metadata or status) for
// references.
func findRefs(obj map[string]any) []ref {
	var out []ref
	kubesec.Walk(obj, func(p vpath, key string, v any) bool {
		m, ok := v.(map[string]any)
		if !ok || !isRefKey(key) {
			return false
		}
		r := ref{key: key, path: p.String()}
		r.apiGroup, r.hasAPIGroup = m["apiGroup"].(string)
		r.apiVersion, r.hasAPIVersion = m["apiVersion"].(string)
		r.kind, _ = m["kind"].(string)
		r.name, _ = m["name"].(string)
		r.namespace, _ = m["namespace"].(string)
		out = append(out, r)
		return true
	})
	return out
}

func (r ref) group() (string, bool) {
	switch {
	case r.hasAPIGroup:
		return r.apiGroup, true
	case r.hasAPIVersion:
		gv, err := schema.ParseGroupVersion(r.apiVersion)
		if err != nil {
			return "", false
		}
		return gv.Group, true
	}
	return "", false
}

// checkRefs runs RENDER005 (references resolve) and RENDER006 (their
// format matches the API version).
func (c *checker) checkRefs(rs *renderedSet) {
	for _, d := range rs.objs {
		gvk := d.obj.GroupVersionKind()
		if isCAPICluster(d.obj) {
			_, hasTopology, _ := unstructured.NestedFieldNoCopy(d.obj.Object, "spec", "topology")
			_, hasInfra, _ := unstructured.NestedFieldNoCopy(d.obj.Object, "spec", "infrastructureRef")
			if !hasTopology && !hasInfra {
				c.add(c.objFinding(ruleRefResolve, rs, d, "spec.infrastructureRef",
					"the Cluster has neither spec.infrastructureRef nor spec.topology: CAPI has no infrastructure to provision it on"))
			}
		}
		// The CRD, when given, knows the reference types of its kind;
		// else only CAPI's own kinds are checked (providers choose their
		// own: k0smotron's v1beta2 K0sControlPlane keeps apiVersion).
		checkShape := coreRefKinds[gvk.GroupKind()] && (c.opts.Schemas == nil || !c.opts.Schemas.Has(gvk))
		for _, r := range findRefs(d.obj.Object) {
			if checkShape && isContractRefKey(r.key) {
				switch gvk.Version {
				case "v1beta2":
					if !r.hasAPIGroup || r.hasAPIVersion {
						c.add(c.objFinding(ruleRefFormat, rs, d, r.path,
							fmt.Sprintf("%s: references in %s objects are {apiGroup, kind, name}, not {apiVersion, kind, name}", r.path, gvk.GroupVersion())))
					}
				case "v1beta1":
					if !r.hasAPIVersion || r.hasAPIGroup {
						c.add(c.objFinding(ruleRefFormat, rs, d, r.path,
							fmt.Sprintf("%s: references in %s objects are {apiVersion, kind, name}, not {apiGroup, kind, name}", r.path, gvk.GroupVersion())))
					}
				}
			}
			if msg := c.resolve(rs, d, r); msg != "" {
				c.add(c.objFinding(ruleRefResolve, rs, d, r.path, r.path+": "+msg))
			}
		}
	}
}

// resolve returns why a reference does not resolve, or "".
func (c *checker) resolve(rs *renderedSet, from renderedDoc, r ref) string {
	if r.kind == "" || r.name == "" {
		return "the reference has no kind or name"
	}
	group, groupKnown := r.group()
	ns := from.obj.GetNamespace()
	if r.namespace != "" {
		ns = r.namespace
	}
	var sameKind []string
	for _, d := range rs.objs {
		gvk := d.obj.GroupVersionKind()
		if gvk.Kind != r.kind {
			continue
		}
		sameKind = append(sameKind, d.obj.GetName())
		if d.obj.GetName() != r.name || (groupKnown && gvk.Group != group) {
			continue
		}
		if ons := d.obj.GetNamespace(); ns != "" && ons != "" && ons != ns {
			continue
		}
		return ""
	}
	what := r.kind
	if groupKnown {
		what += "." + group
	}
	msg := fmt.Sprintf("%s %q is not rendered by the chart", what, r.name)
	if len(sameKind) > 0 {
		msg += fmt.Sprintf(" (it renders %s %s)", r.kind, quoteList(sameKind))
	}
	return msg
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// providerPrefixes are the provider types of clusterctl's names.
var providerPrefixes = []string{
	k0rdent.InfrastructureProviderPrefix, k0rdent.ControlPlaneProviderPrefix, k0rdent.BootstrapProviderPrefix,
	k0rdent.IPAMProviderPrefix, "runtime-extension-", "addon-",
}

// servesLabel reports whether a declared provider (a clusterctl name,
// type prefix and name: infrastructure-k0sproject-k0smotron) is the one a
// CRD's cluster.x-k8s.io/provider label names. clusterctl labels what it
// installs with exactly that name (infrastructure-aws, also on CAPA's
// control plane and bootstrap CRDs); released files may leave the type out
// (k0smotron: k0sproject-k0smotron), and providers' own CRD bases may use
// the short name that clusterctl prefixes with the organisation for
// providers it does not know (k0smotron's bases: infrastructure-k0smotron).
// So: the types must agree when the label has one, and the names must be
// equal or one must end with "-" and the other.
func servesLabel(declared, label string) bool {
	dType, dName := splitProvider(declared)
	lType, lName := splitProvider(label)
	if lType != "" && lType != dType {
		return false
	}
	return dName == lName || strings.HasSuffix(dName, "-"+lName) || strings.HasSuffix(lName, "-"+dName)
}

// splitProvider splits a provider name into its type prefix and name.
func splitProvider(p string) (typ, name string) {
	for _, pre := range providerPrefixes {
		if rest, ok := strings.CutPrefix(p, pre); ok {
			return pre, rest
		}
	}
	return "", p
}

// k0rdentGroup reports whether a group is served by k0rdent's own
// components, which every management cluster runs: kcm
// (k0rdent.mirantis.com) and Sveltos (*.projectsveltos.io).
func k0rdentGroup(g string) bool {
	return g == k0rdent.Group || g == k0rdent.SveltosGroup || strings.HasSuffix(g, ".projectsveltos.io")
}

// capiGroup reports whether a group is CAPI's or one of the provider
// groups (*.cluster.x-k8s.io).
func capiGroup(g string) bool {
	return g == k0rdent.CAPIGroup || strings.HasSuffix(g, "."+k0rdent.CAPIGroup)
}

// checkProviderGroups runs RENDER007: every rendered kind is served by a
// declared provider, by CAPI core or by k0rdent itself. Which provider
// serves a kind comes from real data: the cluster.x-k8s.io/provider label
// of its CRD (--crds with released CRDs, or --kubeconfig). A kind of a
// *.cluster.x-k8s.io group whose CRD says nothing (or is not given) is not
// judged; SCHEMA001/SCHEMA003 say it was not checked.
func (c *checker) checkProviderGroups(rs *renderedSet) {
	if !c.providersSet {
		return
	}
	for _, d := range rs.objs {
		gvk := d.obj.GroupVersionKind()
		g := gvk.Group
		switch {
		case securityClass(gvk) != "" || c.clusterScoped(gvk):
			continue // SEC rules report them
		case g == "" && gvk.Version == "v1" && (gvk.Kind == "Secret" || gvk.Kind == "ConfigMap"):
			continue
		case g == k0rdent.CAPIGroup || g == k0rdent.AddonsGroup || k0rdentGroup(g):
			continue
		}
		if c.opts.Schemas != nil {
			if labels, ok := c.opts.Schemas.Labels(gvk.GroupKind()); ok {
				if label := labels[k0rdent.ProviderLabel]; label != "" {
					if !slices.ContainsFunc(c.providers, func(p string) bool { return servesLabel(p, label) }) {
						c.add(c.objFinding(ruleProviderGroup, rs, d, "",
							fmt.Sprintf("%s is served by provider %s (the %s label of its CRD), which Chart.yaml's %s (%s) does not declare: kcm does not check that it is installed before it accepts a ClusterDeployment", gvk.Kind, label, k0rdent.ProviderLabel, annProvider, strings.Join(c.providers, ", "))))
					}
					continue
				}
			}
		}
		if capiGroup(g) {
			continue // no data on which provider serves it
		}
		msg := fmt.Sprintf("%s belongs to API group %q, which no Cluster API provider serves: a ClusterTemplate declares the providers it needs (%s: %s) and kcm checks only those before it accepts a ClusterDeployment", gvk.Kind, displayGroup(g), annProvider, strings.Join(c.providers, ", "))
		if g == "" {
			msg += " (of the core API only Secrets and ConfigMaps belong in a cluster template)"
		}
		c.add(c.objFinding(ruleProviderGroup, rs, d, "", msg))
	}
}

func displayGroup(g string) string {
	if g == "" {
		return "core"
	}
	return g
}

// checkDurations runs RENDER012: the duration fields kcm writes back
// (k0rdent.ImmutableDurations) are in Go's canonical form.
func (c *checker) checkDurations(rs *renderedSet) {
	for _, d := range rs.objs {
		gvk := d.obj.GroupVersionKind()
		if gvk.Group != k0rdent.Group {
			continue
		}
		for _, path := range k0rdent.ImmutableDurations[gvk.Kind] {
			v, ok, _ := unstructured.NestedString(d.obj.Object, strings.Split(path, ".")...)
			if !ok {
				continue
			}
			canon, err := k0rdent.CanonicalDuration(v)
			if err != nil || canon == v {
				continue // a bad duration is the schema's business (SCHEMA002)
			}
			c.add(c.objFinding(ruleDuration, rs, d, path,
				fmt.Sprintf("%s: %q is written back by kcm as %q, and the %s's spec is immutable: every update kcm makes is rejected (Spec is immutable); write %s", path, v, canon, gvk.Kind, canon)))
		}
	}
}
