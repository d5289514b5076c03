package status

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/k0rdent/kbook/internal/kubeversion"
)

// upgrade reports a change of template in progress: the deployment names
// another template than the one it was upgraded from (the annotation kbook
// upgrade apply sets), or the HelmRelease still runs another chart version
// than the template's.
func (col *collector) upgrade(cd *unstructured.Unstructured, tpl, hr, cluster *Node) *Upgrade {
	to, _, _ := unstructured.NestedString(cd.Object, "spec", "template")
	from := cd.GetAnnotations()[UpgradeFromAnnotation]
	chartTo := ""
	if tpl != nil && !tpl.Missing {
		chartTo = templateChartVersion(col.objs[tpl])
	}
	var h hist
	if hr != nil && !hr.Missing {
		h = history(col.objs[hr])
	}
	inFlight := from != "" && from != to
	if !inFlight && (h.version == "" || chartTo == "" || h.version == chartTo) {
		return nil
	}
	u := &Upgrade{From: from, To: to, ChartFrom: h.version, ChartTo: chartTo}
	gen, obs := cd.GetGeneration(), int64(0)
	obs, _, _ = unstructured.NestedInt64(cd.Object, "status", "observedGeneration")
	u.Steps = append(u.Steps, Step{What: "kcm reconciled the new template", Done: obs >= gen, Note: fmt.Sprintf("generation %d, observed %d", gen, obs)})
	hrDone := hr != nil && hr.Ready == "True" && (chartTo == "" || h.version == chartTo)
	note := "no HelmRelease yet"
	if hr != nil && !hr.Missing {
		note = fmt.Sprintf("deployed %s %s, Ready=%s", h.chart, h.version, hr.Ready)
	}
	if msg, ok := rejectedConfig(cd); ok && !hrDone {
		// kcm checks the config against the new chart and stops; it
		// retries with backoff, and the same config fails the same way
		// until spec.config changes (the chart is immutable).
		note += "; kcm has not updated it: HelmChartReady=False"
		u.Failed = fmt.Sprintf("kcm rejected spec.config for %s and left the HelmRelease on chart %s: %s", to, h.version, Compact(msg))
	}
	u.Steps = append(u.Steps, Step{What: "HelmRelease upgraded to chart " + chartTo, Done: hrDone, Note: note})
	if cluster != nil && !cluster.Missing {
		for _, c := range cluster.Children {
			switch {
			case c.Role == "ControlPlane":
				u.Steps = append(u.Steps, col.rolloutStep(c, "control plane "+c.Kind+" "+c.Name, "spec", "version"))
			case c.Kind == "Workers":
				for _, w := range c.Children {
					u.Steps = append(u.Steps, col.rolloutStep(w, w.Kind+" "+w.Name, "spec", "template", "spec", "version"))
				}
			}
		}
	}
	u.Done = true
	for _, s := range u.Steps {
		u.Done = u.Done && s.Done
	}
	return u
}

// rolloutStep is done when the object is at its desired version with all
// replicas up to date and ready.
func (col *collector) rolloutStep(n *Node, what string, versionPath ...string) Step {
	u := col.objs[n]
	s := Step{What: what}
	if u == nil {
		return s
	}
	want, _, _ := unstructured.NestedString(u.Object, versionPath...)
	have, hasStatus, _ := unstructured.NestedString(u.Object, "status", "version")
	spec := fmt.Sprint(orZero(firstField(u, []string{"spec", "replicas"})))
	upToDate := firstField(u, []string{"status", "upToDateReplicas"}, []string{"status", "updatedReplicas"})
	ready := fmt.Sprint(orZero(firstField(u, []string{"status", "readyReplicas"})))
	s.Note = fmt.Sprintf("%v/%s up to date, %s/%s ready", orZero(upToDate), spec, ready, spec)
	if want != "" {
		s.Note = "at " + want + ", " + s.Note
	}
	// Done once every machine is new: no surge left, none being deleted.
	total, hasTotal, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "replicas")
	if hasTotal && fmt.Sprint(total) != spec {
		s.Note += fmt.Sprintf(", %v machines", total)
	}
	// Until the controller has seen the new spec its status is the old one's.
	observed, hasObserved, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	if hasObserved && observed < u.GetGeneration() {
		s.Note += fmt.Sprintf(", generation %d not yet observed", u.GetGeneration())
	}
	behind := machinesBehind(n, want)
	if behind > 0 {
		s.Note += fmt.Sprintf(", %d machine(s) not yet at %s", behind, want)
	}
	s.Done = n.Ready == "True" && (!hasStatus || have == want) && (upToDate == nil || fmt.Sprint(upToDate) == spec) && ready == spec &&
		(!hasTotal || fmt.Sprint(total) == spec) && (!hasObserved || observed >= u.GetGeneration()) && behind == 0 && !anyDeleting(n)
	return s
}

// anyDeleting reports whether a machine below n is being deleted.
func anyDeleting(n *Node) bool {
	for _, c := range n.Children {
		if c.Deleting != nil || anyDeleting(c) {
			return true
		}
	}
	return false
}

// machinesBehind counts the machines below n whose version is not want.
func machinesBehind(n *Node, want string) int {
	if want == "" {
		return 0
	}
	count := 0
	for _, c := range n.Children {
		if c.Kind == kindMachine && !sameKubernetes(c.Version, want) {
			count += max(c.Count, 1)
		}
	}
	return count
}

// sameKubernetes reports whether two versions name the same Kubernetes
// release: k0smotron's control plane says v1.34.1+k0s.0 where its machines
// may say v1.34.1.
func sameKubernetes(a, b string) bool {
	va, errA := kubeversion.Parse(a)
	vb, errB := kubeversion.Parse(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return va.Compare(vb) == 0
}

// rejectedConfig is kcm's HelmChartReady=False for the current generation
// when its dry run of the chart with spec.config failed.
func rejectedConfig(cd *unstructured.Unstructured) (string, bool) {
	list, _, _ := unstructured.NestedSlice(cd.Object, "status", "conditions")
	for _, item := range list {
		m, _ := item.(map[string]any)
		if m["type"] != "HelmChartReady" || m["status"] != "False" {
			continue
		}
		msg, _ := m["message"].(string)
		gen, _, _ := unstructured.NestedInt64(m, "observedGeneration")
		if configRejected(msg) && gen >= cd.GetGeneration() {
			return msg, true
		}
	}
	return "", false
}
