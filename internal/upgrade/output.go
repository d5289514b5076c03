package upgrade

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
)

// WriteText writes the report for people: both sides, kcm's answer, the
// hazards and warnings, the predicted rollouts, the other changes, and a
// verdict line.
func WriteText(w io.Writer, r *Report) {
	if r.DeploymentAssumed {
		fmt.Fprintf(w, "Upgrade of ClusterDeployment %s (none given: rendered as kbook template render does)\n", r.Deployment)
	} else {
		fmt.Fprintf(w, "Upgrade of ClusterDeployment %s\n", r.Deployment)
	}
	fmt.Fprintf(w, "  from %s\n", describeSide(r.From))
	fmt.Fprintf(w, "  to   %s\n", describeSide(r.To))
	if r.Pin != nil {
		fmt.Fprintf(w, "  pinned to Kubernetes %s (%s=%q)\n", r.Pin.Allows, PinAnnotation, r.Pin.Value)
	}
	switch {
	case !r.KCM.Accepts:
		fmt.Fprintf(w, "kcm: rejects it: %s\n", r.KCM.Says[0])
		for _, s := range r.KCM.Says[1:] {
			fmt.Fprintf(w, "  and then: %s\n", s)
		}
	case r.KCM.Checked:
		fmt.Fprintln(w, "kcm: accepts it")
	default:
		fmt.Fprintln(w, "kcm: accepts it as far as kbook can tell offline; not checked:")
		for _, u := range r.KCM.Unchecked {
			fmt.Fprintf(w, "  - %s\n", u)
		}
	}
	if p := r.Providers; p != nil && len(p.Needed) > 0 {
		fmt.Fprintf(w, "Providers %s needs, as %s exposes them:\n", r.To.Template, p.Parent)
		for _, n := range p.Needed {
			fmt.Fprintf(w, "  %s\n", describeNeed(n))
		}
	}
	for _, f := range r.Findings {
		loc := ""
		if f.File != "" {
			loc = f.File + ": "
		}
		fmt.Fprintf(w, "%s%s: %s [%s]\n", loc, f.Severity, f.Message, f.Rule)
		if f.KCM != "" {
			fmt.Fprintf(w, "    kcm says: %s\n", f.KCM)
		}
	}
	if len(r.Rollouts) > 0 {
		fmt.Fprintln(w, "Predicted rollouts (machines replaced):")
		for _, ro := range r.Rollouts {
			fmt.Fprintf(w, "  %s, %s machine(s): %s", ro.Object, ro.Replicas, strings.Join(ro.Why, "; "))
			if ro.Strategy != "" {
				fmt.Fprintf(w, " [%s]", ro.Strategy)
			}
			fmt.Fprintln(w)
			if ro.After != "" {
				fmt.Fprintf(w, "    after %s\n", ro.After)
			}
		}
	}
	if len(r.Impacts) > 0 {
		fmt.Fprintln(w, "Other changes to the cluster (no machines replaced):")
		for _, im := range r.Impacts {
			fmt.Fprintf(w, "  %s: %s\n", im.Object, im.Message)
		}
	}
	if len(r.Objects) > 0 {
		var added, removed, changed int
		for _, o := range r.Objects {
			switch o.Change {
			case "added":
				added++
			case "removed":
				removed++
			default:
				changed++
			}
		}
		fmt.Fprintf(w, "Rendered objects: %d added, %d removed, %d changed\n", added, removed, changed)
		for _, o := range r.Objects {
			fmt.Fprintf(w, "  %s %s", o.Change, o.Object)
			if len(o.Fields) > 0 {
				fmt.Fprintf(w, ": %s", strings.Join(o.Fields, ", "))
			}
			fmt.Fprintln(w)
		}
	} else {
		fmt.Fprintln(w, "Rendered objects: no changes")
	}
	if len(r.Defaults) > 0 {
		fmt.Fprintln(w, "Defaults that change (the config does not set them):")
		for _, d := range r.Defaults {
			fmt.Fprintf(w, "  %s: %s → %s\n", d.Path, short(d.From), short(d.To))
		}
	}
	fmt.Fprintln(w, Verdict(r))
}

func describeSide(s SideReport) string {
	return fmt.Sprintf("%s: chart %s %s, Kubernetes %s", s.Template, s.ChartName, s.ChartVersion, s.K8s)
}

func short(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(data)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// describeNeed is one provider line: "infrastructure-docker v1beta2:
// exposed, offers v1beta1 v1beta2".
func describeNeed(n ProviderNeed) string {
	name := n.Name
	if n.Contract != "" {
		name += " " + n.Contract
	}
	switch {
	case !n.Exposed:
		return name + ": not exposed"
	case len(n.Offered) == 0:
		return name + ": exposed"
	case !n.Satisfied:
		return fmt.Sprintf("%s: exposed, but offers only %s", name, strings.Join(n.Offered, " "))
	}
	return fmt.Sprintf("%s: exposed, offers %s", name, strings.Join(n.Offered, " "))
}

// Verdict is the last line of the text report.
func Verdict(r *Report) string {
	h := r.Hazards()
	var warn, info int
	for _, f := range r.Findings {
		switch f.Severity {
		case findings.Warning:
			warn++
		case findings.Info:
			info++
		}
	}
	infos := ""
	if info > 0 {
		infos = ", " + plural(info, "info")
	}
	switch {
	case h > 0:
		return fmt.Sprintf("%s, %s%s: the upgrade is not safe", plural(h, "hazard"), plural(warn, "warning"), infos)
	case warn > 0:
		return fmt.Sprintf("no hazards, %s%s", plural(warn, "warning"), infos)
	}
	return "no hazards" + infos
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// WriteJSON writes the report as one JSON document.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Hazards int `json:"hazards"`
		*Report
	}{r.Hazards(), r})
}
