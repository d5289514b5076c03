package upgrade

import (
	"cmp"
	"fmt"
	"github.com/k0rdent/kbook/internal/findings"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/k0rdent/kbook/internal/k0rdent"
	"github.com/k0rdent/kbook/internal/kubeversion"
	"github.com/k0rdent/kbook/internal/template"
)

// ObjectDiff is one rendered object that the upgrade adds, removes or
// changes.
type ObjectDiff struct {
	// Change is added, removed or changed.
	Change string `json:"change"`
	// Object is "Kind name (group)".
	Object   string `json:"object"`
	Template string `json:"template"`
	// Fields are the changed field paths (at most maxFields).
	Fields []string `json:"fields,omitempty"`
}

// Rollout is a predicted replacement of machines.
type Rollout struct {
	// Object is the MachineDeployment, MachinePool or control plane.
	Object string `json:"object"`
	// Replicas is how many machines are replaced.
	Replicas string `json:"replicas"`
	// Why lists what makes the controller roll it.
	Why []string `json:"why"`
	// Strategy is how, as the object says or CAPI defaults it.
	Strategy string `json:"strategy,omitempty"`
	// After says what the rollout waits for: workers roll only once the
	// control plane is at its new version.
	After string `json:"after,omitempty"`
}

// Impact is a change that reaches the cluster without replacing machines.
type Impact struct {
	Object  string `json:"object"`
	Message string `json:"message"`
}

const maxFields = 8

// objKey identifies an object across both renderings: the API version may
// change (v1beta1 → v1beta2), the group, kind, namespace and name may not.
type objKey struct{ group, kind, namespace, name string }

func keyOf(u *unstructured.Unstructured, ns string) objKey {
	return objKey{u.GroupVersionKind().Group, u.GetKind(), cmp.Or(u.GetNamespace(), ns), u.GetName()}
}

func describeObj(u *unstructured.Unstructured) string {
	g := u.GroupVersionKind().Group
	if g == "" {
		return u.GetKind() + " " + u.GetName()
	}
	return u.GetKind() + " " + u.GetName() + " (" + g + ")"
}

func shortObj(u *unstructured.Unstructured) string { return u.GetKind() + " " + u.GetName() }

// objects compares the renderings and classifies what changes.
func (c *checker) objects() {
	if c.oldErr != nil || c.newErr != nil {
		return
	}
	ns := c.in.Deployment.Namespace
	oldBy := map[objKey]template.Object{}
	newBy := map[objKey]template.Object{}
	var order []objKey
	for _, o := range c.oldObjs {
		k := keyOf(o.Unstructured, ns)
		oldBy[k] = o
		order = append(order, k)
	}
	for _, o := range c.newObjs {
		k := keyOf(o.Unstructured, ns)
		newBy[k] = o
		if _, ok := oldBy[k]; !ok {
			order = append(order, k)
		}
	}
	core := c.coreObjects()
	for _, k := range order {
		o, inOld := oldBy[k]
		n, inNew := newBy[k]
		switch {
		case inOld && !inNew:
			c.rep.Objects = append(c.rep.Objects, ObjectDiff{Change: "removed", Object: describeObj(o.Unstructured), Template: o.Template})
			if what, ok := core[k]; ok {
				c.add(findings.Finding{Rule: ruleDeletes, File: c.from.path + "/" + o.Template,
					Message: fmt.Sprintf("%s no longer renders %s %s: the Helm upgrade deletes it, and CAPI tears down what it manages", c.rep.To.Template, what, shortObj(o.Unstructured))})
			}
		case !inOld && inNew:
			c.rep.Objects = append(c.rep.Objects, ObjectDiff{Change: "added", Object: describeObj(n.Unstructured), Template: n.Template})
		default:
			fields := diffFields(o.Unstructured.Object, n.Unstructured.Object)
			if len(fields) == 0 {
				continue
			}
			d := ObjectDiff{Change: "changed", Object: describeObj(n.Unstructured), Template: n.Template, Fields: fields}
			if len(d.Fields) > maxFields {
				d.Fields = append(d.Fields[:maxFields:maxFields], fmt.Sprintf("(and %d more)", len(fields)-maxFields))
			}
			c.rep.Objects = append(c.rep.Objects, d)
			c.immutable(o, n, fields)
		}
	}
	if c.rep.From.ChartName != c.rep.To.ChartName {
		c.add(findings.Finding{Rule: ruleChartRenamed, File: c.to.path + "/Chart.yaml",
			KCM:     fmt.Sprintf("Helm chart name changed from %q to %q: Flux will uninstall the existing release and reinstall it as a new release, which may cause service disruption or resource recreation", c.rep.From.ChartName, c.rep.To.ChartName),
			Message: fmt.Sprintf("the chart changes from %s to %s: Flux uninstalls the Helm release, deleting every object of the cluster, and installs the new chart (kcm only warns, on dry-run deployments)", c.rep.From.ChartName, c.rep.To.ChartName)})
	}
	c.workers(oldBy, newBy)
	c.rollouts(oldBy, newBy)
}

// coreObjects are the objects whose deletion takes the cluster or its
// machines down: the Cluster, its infrastructure cluster and control
// plane, MachineDeployments and MachinePools.
func (c *checker) coreObjects() map[objKey]string {
	ns := c.in.Deployment.Namespace
	out := map[objKey]string{}
	for _, o := range c.oldObjs {
		u := o.Unstructured
		g, k := u.GroupVersionKind().Group, u.GetKind()
		if g != k0rdent.CAPIGroup {
			continue
		}
		switch k {
		case k0rdent.KindCluster:
			out[keyOf(u, ns)] = "the CAPI"
			for field, what := range map[string]string{"infrastructureRef": "the infrastructure cluster", "controlPlaneRef": "the control plane"} {
				ref, _, _ := unstructured.NestedMap(u.Object, "spec", field)
				if rk, ok := refKey(ref, ns); ok {
					out[rk] = what
				}
			}
		case k0rdent.KindMachineDeployment, k0rdent.KindMachinePool:
			out[keyOf(u, ns)] = "the"
		}
	}
	return out
}

// refKey turns an object reference ({apiGroup|apiVersion, kind, name}) into
// a key.
func refKey(ref map[string]any, ns string) (objKey, bool) {
	if ref == nil {
		return objKey{}, false
	}
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	if kind == "" || name == "" {
		return objKey{}, false
	}
	group, _ := ref["apiGroup"].(string)
	if av, ok := ref["apiVersion"].(string); ok && group == "" {
		group = schema.FromAPIVersionAndKind(av, kind).Group
	}
	refNS, _ := ref["namespace"].(string)
	return objKey{group, kind, cmp.Or(refNS, ns), name}, true
}

func refString(ref map[string]any) string {
	if ref == nil {
		return "none"
	}
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	return kind + " " + name
}

// sameRef compares references as CAPI does: group, kind and name; the API
// version does not count.
func sameRef(a, b map[string]any) bool {
	ka, oka := refKey(a, "")
	kb, okb := refKey(b, "")
	if oka != okb {
		return false
	}
	return ka == kb
}

// immutable reports a provider machine template whose spec changes under
// the same name: CAPI providers reject updates of InfraMachineTemplate
// specs, so the Helm upgrade fails.
func (c *checker) immutable(o, n template.Object, fields []string) {
	u := n.Unstructured
	if u.GroupVersionKind().Group != k0rdent.InfrastructureGroup || !strings.HasSuffix(u.GetKind(), "MachineTemplate") {
		return
	}
	var spec []string
	for _, f := range fields {
		if strings.HasPrefix(f, "spec.") || f == "spec" {
			spec = append(spec, f)
		}
	}
	if len(spec) == 0 {
		return
	}
	if len(spec) > 3 {
		spec = append(spec[:3], "...")
	}
	c.add(findings.Finding{Rule: ruleImmutable, File: c.to.path + "/" + n.Template,
		Message: fmt.Sprintf("%s %s changes its spec under the same name (%s): %s is immutable (the provider's webhook rejects spec updates), so the Helm upgrade fails; the chart must give the changed template a new name, which makes CAPI roll the machines", u.GetKind(), u.GetName(), strings.Join(spec, ", "), u.GetKind())})
}

// cpVersion is the Kubernetes version of a control plane's spec.version.
func cpVersion(u *unstructured.Unstructured) (kubeversion.Version, string) {
	s, _, _ := unstructured.NestedString(u.Object, "spec", "version")
	if s == "" {
		return kubeversion.Version{}, ""
	}
	v, err := kubeversion.Parse(kubeversion.StripK0s(s))
	if err != nil {
		return kubeversion.Version{}, s
	}
	return v, s
}

// controlPlane returns the control plane the rendering's Cluster points at
// (any control plane object when there is no Cluster).
func controlPlane(by map[objKey]template.Object, ns string) (*unstructured.Unstructured, bool) {
	for _, o := range by {
		u := o.Unstructured
		if u.GroupVersionKind().Group == k0rdent.CAPIGroup && u.GetKind() == k0rdent.KindCluster {
			ref, _, _ := unstructured.NestedMap(u.Object, "spec", "controlPlaneRef")
			if k, ok := refKey(ref, ns); ok {
				if cp, ok := by[k]; ok {
					return cp.Unstructured, true
				}
			}
		}
	}
	for _, o := range by {
		if isControlPlane(o) {
			return o.Unstructured, true
		}
	}
	return nil, false
}

// machineSets are the MachineDeployments and MachinePools of a rendering,
// sorted by name.
func machineSets(by map[objKey]template.Object) []template.Object {
	var out []template.Object
	for _, o := range by {
		u := o.Unstructured
		if u.GroupVersionKind().Group == k0rdent.CAPIGroup && (u.GetKind() == k0rdent.KindMachineDeployment || u.GetKind() == k0rdent.KindMachinePool) {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b template.Object) int {
		return strings.Compare(a.Unstructured.GetName(), b.Unstructured.GetName())
	})
	return out
}

func workerVersion(u *unstructured.Unstructured) (kubeversion.Version, bool) {
	s, _, _ := unstructured.NestedString(u.Object, "spec", "template", "spec", "version")
	if s == "" {
		return kubeversion.Version{}, false
	}
	v, err := kubeversion.Parse(kubeversion.StripK0s(s))
	return v, err == nil
}

// workers checks the workers against the control plane: kubelet skew in
// the new rendering and while the control plane is ahead, and
// MachineDeployments without a version that stay behind (kcm #1389).
func (c *checker) workers(oldBy, newBy map[objKey]template.Object) {
	ns := c.in.Deployment.Namespace
	oldCP, okOld := controlPlane(oldBy, ns)
	newCP, okNew := controlPlane(newBy, ns)
	if !okNew {
		return
	}
	newV, _ := cpVersion(newCP)
	var oldV kubeversion.Version
	if okOld {
		oldV, _ = cpVersion(oldCP)
	}
	for _, o := range machineSets(newBy) {
		u := o.Unstructured
		k := keyOf(u, ns)
		wv, has := workerVersion(u)
		var before kubeversion.Version
		if prev, ok := oldBy[k]; ok {
			if pv, ok := workerVersion(prev.Unstructured); ok {
				before = pv
			} else {
				before = oldV
			}
		}
		if !has {
			if !oldV.IsZero() && !newV.IsZero() && oldV.Compare(newV) != 0 && u.GetKind() == k0rdent.KindMachineDeployment {
				c.add(findings.Finding{Rule: ruleWorkersBehind, File: c.to.path + "/" + o.Template,
					Message: fmt.Sprintf("%s %s sets no spec.template.spec.version: the control plane moves from %s to %s, but CAPI does not roll the workers, whose machines keep %s (kcm #1389); set spec.template.spec.version from the same value as the control plane's", u.GetKind(), u.GetName(), oldV, newV, oldV)})
				if p := kubeversion.CheckKubelet(newV, oldV); p != nil {
					c.add(findings.Finding{Rule: ruleSkew, Message: fmt.Sprintf("%s %s: %s", u.GetKind(), u.GetName(), p.Message)})
				}
			}
			continue
		}
		if p := kubeversion.CheckKubelet(newV, wv); p != nil {
			c.add(findings.Finding{Rule: ruleSkew, File: c.to.path + "/" + o.Template, Message: fmt.Sprintf("%s %s runs %s with the control plane at %s: %s", u.GetKind(), u.GetName(), wv, newV, p.Message)})
		} else if !before.IsZero() && before.Compare(wv) != 0 {
			// The control plane upgrades first: until the workers roll,
			// the old kubelets face the new API server.
			if p := kubeversion.CheckKubelet(newV, before); p != nil {
				c.add(findings.Finding{Rule: ruleSkew, File: c.to.path + "/" + o.Template, Message: fmt.Sprintf("while %s %s rolls, its machines at %s face the upgraded control plane at %s: %s", u.GetKind(), u.GetName(), before, newV, p.Message)})
			}
		}
	}
}

// rollouts predicts which machines the controllers replace, and why, as
// CAPI and the control plane providers decide it.
//
// The control plane comes first: while it changes version, CAPI's
// MachineSet preflight checks (ControlPlaneIsStable, KubernetesVersionSkew;
// internal/controllers/machineset/machineset_preflight.go, on by default)
// hold every new worker machine until it is at the new version, so the
// workers roll after it.
func (c *checker) rollouts(oldBy, newBy map[objKey]template.Object) {
	ns := c.in.Deployment.Namespace
	var cpWait string
	if newCP, ok := controlPlane(newBy, ns); ok {
		if o, ok := oldBy[keyOf(newCP, ns)]; ok {
			c.controlPlaneRollout(o.Unstructured, newCP)
			_, ov := cpVersion(o.Unstructured)
			if _, nv := cpVersion(newCP); nv != "" && ov != nv {
				cpWait = fmt.Sprintf("%s %s is at %s", newCP.GetKind(), newCP.GetName(), nv)
			}
		}
	}
	for _, n := range machineSets(newBy) {
		o, ok := oldBy[keyOf(n.Unstructured, ns)]
		if !ok {
			continue
		}
		why := machineTemplateChanges(o.Unstructured, n.Unstructured)
		if len(why) == 0 {
			continue
		}
		u := n.Unstructured
		r := Rollout{Object: describeObj(u), Replicas: replicas(u), Why: why}
		if u.GetKind() == k0rdent.KindMachinePool {
			r.Strategy = "the infrastructure provider replaces the pool's nodes"
		} else {
			r.Strategy = mdStrategy(u)
			if cpWait != "" && !skipsPreflight(u) {
				r.After = cpWait + " (CAPI's MachineSet preflight checks hold new machines until then)"
			}
		}
		c.rep.Rollouts = append(c.rep.Rollouts, r)
	}
}

// skipsPreflight reports whether a MachineDeployment skips the MachineSet
// preflight checks that order the rollout after the control plane (its
// annotations are copied to its MachineSets).
func skipsPreflight(u *unstructured.Unstructured) bool {
	skip := map[string]bool{}
	for _, s := range strings.Split(u.GetAnnotations()[k0rdent.SkipPreflightChecksAnnotation], ",") {
		skip[strings.TrimSpace(s)] = true
	}
	return skip["All"] || (skip["ControlPlaneIsStable"] && skip["KubernetesVersionSkew"])
}

// machineTemplateChanges is CAPI's MachineTemplateUpToDate
// (internal/controllers/machinedeployment/mdutil): version, bootstrap,
// infrastructureRef (group, kind, name) and failureDomain roll the
// machines; labels, annotations, timeouts, readiness gates and taints are
// updated in place.
func machineTemplateChanges(o, n *unstructured.Unstructured) []string {
	var why []string
	ov, _, _ := unstructured.NestedString(o.Object, "spec", "template", "spec", "version")
	nv, _, _ := unstructured.NestedString(n.Object, "spec", "template", "spec", "version")
	if ov != nv {
		why = append(why, fmt.Sprintf("version %s → %s", cmp.Or(ov, "unset"), cmp.Or(nv, "unset")))
	}
	ob, _, _ := unstructured.NestedMap(o.Object, "spec", "template", "spec", "bootstrap")
	nb, _, _ := unstructured.NestedMap(n.Object, "spec", "template", "spec", "bootstrap")
	obr, _ := ob["configRef"].(map[string]any)
	nbr, _ := nb["configRef"].(map[string]any)
	if !sameRef(obr, nbr) || ob["dataSecretName"] != nb["dataSecretName"] {
		why = append(why, fmt.Sprintf("bootstrap %s → %s", refString(obr), refString(nbr)))
	}
	oi, _, _ := unstructured.NestedMap(o.Object, "spec", "template", "spec", "infrastructureRef")
	ni, _, _ := unstructured.NestedMap(n.Object, "spec", "template", "spec", "infrastructureRef")
	if !sameRef(oi, ni) {
		why = append(why, fmt.Sprintf("infrastructureRef %s → %s", refString(oi), refString(ni)))
	}
	of, _, _ := unstructured.NestedString(o.Object, "spec", "template", "spec", "failureDomain")
	nf, _, _ := unstructured.NestedString(n.Object, "spec", "template", "spec", "failureDomain")
	if of != nf {
		why = append(why, fmt.Sprintf("failureDomain %s → %s", cmp.Or(of, "unset"), cmp.Or(nf, "unset")))
	}
	return why
}

func replicas(u *unstructured.Unstructured) string {
	if n, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "replicas"); ok {
		return fmt.Sprint(n)
	}
	return "all"
}

// mdStrategy is a MachineDeployment's rollout strategy with CAPI's
// defaults filled in (internal/webhooks/machinedeployment.go: RollingUpdate,
// maxSurge 1, maxUnavailable 0).
func mdStrategy(u *unstructured.Unstructured) string {
	var s map[string]any
	for _, path := range [][]string{{"spec", "rollout", "strategy"}, {"spec", "strategy"}} {
		if m, ok, _ := unstructured.NestedMap(u.Object, path...); ok {
			s = m
			break
		}
	}
	typ, _ := s["type"].(string)
	typ = cmp.Or(typ, "RollingUpdate")
	if typ != "RollingUpdate" {
		return typ
	}
	ru, _ := s["rollingUpdate"].(map[string]any)
	surge, unavailable := cmp.Or(fmt.Sprint(orNil(ru["maxSurge"])), "1"), cmp.Or(fmt.Sprint(orNil(ru["maxUnavailable"])), "0")
	out := fmt.Sprintf("%s maxSurge %s maxUnavailable %s", typ, surge, unavailable)
	if surge == "1" && unavailable == "0" {
		out += " (a new machine before an old one goes)"
	}
	return out
}

// orNil is v, or "" for nil, for fmt.Sprint.
func orNil(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// controlPlaneRollout predicts what the control plane provider does.
func (c *checker) controlPlaneRollout(o, n *unstructured.Unstructured) {
	_, ovRaw := cpVersion(o)
	_, nvRaw := cpVersion(n)
	versionChanged := ovRaw != nvRaw
	obj := describeObj(n)
	switch n.GetKind() {
	case "K0sControlPlane":
		// k0smotron (internal/controller/controlplane): a machine is out of
		// date when its version, its infrastructure template (by name and
		// kind) or the K0sConfigSpec without the k0s ClusterConfig differ;
		// with updateStrategy InPlace (the default) a version-only change
		// is applied by k0s autopilot on the existing machines.
		strategy, _, _ := unstructured.NestedString(n.Object, "spec", "updateStrategy")
		strategy = cmp.Or(strategy, "InPlace")
		var why []string
		oi, _, _ := unstructured.NestedMap(o.Object, "spec", "machineTemplate", "infrastructureRef")
		ni, _, _ := unstructured.NestedMap(n.Object, "spec", "machineTemplate", "infrastructureRef")
		if !sameRef(oi, ni) {
			why = append(why, fmt.Sprintf("machine template %s → %s", refString(oi), refString(ni)))
		}
		oc, _, _ := unstructured.NestedMap(o.Object, "spec", "k0sConfigSpec")
		nc, _, _ := unstructured.NestedMap(n.Object, "spec", "k0sConfigSpec")
		delete(oc, "k0s")
		delete(nc, "k0s")
		if fs := diffFields(oc, nc); len(fs) > 0 {
			why = append(why, "k0sConfigSpec."+strings.Join(firstN(fs, 3), ", k0sConfigSpec.")+" change")
		}
		if versionChanged && (len(why) > 0 || strategy != "InPlace") {
			why = append([]string{fmt.Sprintf("version %s → %s", ovRaw, nvRaw)}, why...)
		}
		if len(why) > 0 {
			c.rep.Rollouts = append(c.rep.Rollouts, Rollout{Object: obj, Replicas: replicas(n), Why: why, Strategy: "updateStrategy " + strategy})
			return
		}
		if versionChanged {
			c.rep.Impacts = append(c.rep.Impacts, Impact{Object: obj, Message: fmt.Sprintf("version %s → %s in place by k0s autopilot (updateStrategy InPlace): no machines replaced", ovRaw, nvRaw)})
		}
		if fs := diffFields(mapAt(o, "spec", "k0sConfigSpec", "k0s"), mapAt(n, "spec", "k0sConfigSpec", "k0s")); len(fs) > 0 {
			c.rep.Impacts = append(c.rep.Impacts, Impact{Object: obj, Message: "the k0s ClusterConfig changes (" + strings.Join(firstN(fs, 3), ", ") + "): applied through k0s dynamic config, no machines replaced"})
		}
	case "KubeadmControlPlane":
		// CAPI's KCP rolls machines whose version, infrastructure template
		// or KubeadmConfig differ, and after spec.rollout.after.
		var why []string
		if versionChanged {
			why = append(why, fmt.Sprintf("version %s → %s", ovRaw, nvRaw))
		}
		oi := firstMap(o, []string{"spec", "machineTemplate", "spec", "infrastructureRef"}, []string{"spec", "machineTemplate", "infrastructureRef"})
		ni := firstMap(n, []string{"spec", "machineTemplate", "spec", "infrastructureRef"}, []string{"spec", "machineTemplate", "infrastructureRef"})
		if !sameRef(oi, ni) {
			why = append(why, fmt.Sprintf("machine template %s → %s", refString(oi), refString(ni)))
		}
		if fs := diffFields(mapAt(o, "spec", "kubeadmConfigSpec"), mapAt(n, "spec", "kubeadmConfigSpec")); len(fs) > 0 {
			why = append(why, "kubeadmConfigSpec."+strings.Join(firstN(fs, 3), ", kubeadmConfigSpec.")+" change")
		}
		if len(why) > 0 {
			c.rep.Rollouts = append(c.rep.Rollouts, Rollout{Object: obj, Replicas: replicas(n), Why: why, Strategy: kcpStrategy(n)})
		}
	default:
		if !versionChanged {
			return
		}
		msg := fmt.Sprintf("version %s → %s: ", cmp.Or(ovRaw, "unset"), cmp.Or(nvRaw, "unset"))
		if n.GetKind() == "K0smotronControlPlane" {
			msg += "the hosted control plane (pods in the management cluster) is updated; no machines replaced"
		} else {
			msg += "the provider upgrades the managed control plane"
		}
		c.rep.Impacts = append(c.rep.Impacts, Impact{Object: obj, Message: msg})
	}
}

func kcpStrategy(u *unstructured.Unstructured) string {
	for _, path := range [][]string{{"spec", "rollout", "strategy"}, {"spec", "rolloutStrategy"}} {
		if s, ok, _ := unstructured.NestedMap(u.Object, path...); ok {
			out := "RollingUpdate"
			if ru, ok := s["rollingUpdate"].(map[string]any); ok {
				if v, ok := ru["maxSurge"]; ok {
					out += fmt.Sprintf(" maxSurge %v", v)
				}
			}
			return out
		}
	}
	return "RollingUpdate maxSurge 1 (one machine at a time)"
}

func mapAt(u *unstructured.Unstructured, path ...string) map[string]any {
	m, _, _ := unstructured.NestedMap(u.Object, path...)
	return m
}

func firstMap(u *unstructured.Unstructured, paths ...[]string) map[string]any {
	for _, p := range paths {
		if m, ok, _ := unstructured.NestedMap(u.Object, p...); ok {
			return m
		}
	}
	return nil
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(slices.Clone(s[:n]), "...")
	}
	return s
}

// ignoredLabels change with every chart version and change nothing.
var ignoredLabels = []string{"helm.sh/chart", "app.kubernetes.io/version"}

// diffFields lists the paths where a and b differ: map keys walked, lists
// compared element by element when their lengths match.
func diffFields(a, b map[string]any) []string {
	var out []string
	var walk func(x, y any, p string)
	walk = func(x, y any, p string) {
		if reflect.DeepEqual(x, y) {
			return
		}
		xm, xok := x.(map[string]any)
		ym, yok := y.(map[string]any)
		if xok && yok {
			keys := map[string]bool{}
			for k := range xm {
				keys[k] = true
			}
			for k := range ym {
				keys[k] = true
			}
			for _, k := range sortedKeys(keys) {
				if (p == "metadata.labels" || p == "spec.template.metadata.labels") && slices.Contains(ignoredLabels, k) {
					continue
				}
				walk(xm[k], ym[k], joinField(p, k))
			}
			return
		}
		xl, xok := x.([]any)
		yl, yok := y.([]any)
		if xok && yok && len(xl) == len(yl) {
			for i := range xl {
				walk(xl[i], yl[i], p+"["+strconv.Itoa(i)+"]")
			}
			return
		}
		out = append(out, p)
	}
	walk(a, b, "")
	return out
}

func joinField(p, k string) string {
	if !plainKey.MatchString(k) {
		return p + "[" + strconv.Quote(k) + "]"
	}
	if p == "" {
		return k
	}
	return p + "." + k
}
