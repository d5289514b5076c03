package status

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
	s.Done = n.Ready == "True" && (!hasStatus || have == want) && (upToDate == nil || fmt.Sprint(upToDate) == spec) && ready == spec
	return s
}
