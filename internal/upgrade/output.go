package upgrade

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/plural"
)

// FindingsReport is the report as findings.Write writes it: for text,
// both sides, kcm's answer and the providers before the findings (FILE:
// severity: message [RULE], and what kcm says), the predicted rollouts,
// the other changes and the defaults that change after them, and the
// Verdict last; for JSON, "hazards" and the rest after the findings.
func (r *Report) FindingsReport() *findings.Report {
	return &findings.Report{Findings: r.Findings, Detail: detail{r}}
}

// WriteText writes the report for people, as findings.Write does for -o
// text.
func WriteText(w io.Writer, r *Report) error {
	return findings.WriteText(w, r.FindingsReport())
}

type detail struct{ r *Report }

// MarshalJSON is the report with its number of hazards first and without
// its findings, which findings.WriteJSON writes before it.
func (d detail) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Hazards int `json:"hazards"`
		*Report
		// Findings hides the Report's: same JSON name, shallower, nil.
		Findings *int `json:"findings,omitempty"`
	}{Hazards: d.r.Hazards(), Report: d.r})
}

func (d detail) Summary(_, warnings, infos int) string {
	return verdict(d.r.Hazards(), warnings, infos)
}

func (d detail) Head(w io.Writer) {
	r := d.r
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
}

func (d detail) Tail(w io.Writer) {
	r := d.r
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
	_, warnings, infos := findings.Count(r.Findings)
	return verdict(r.Hazards(), warnings, infos)
}

func verdict(hazards, warnings, infos int) string {
	s := ""
	if infos > 0 {
		s = ", " + plural.Count(infos, "info")
	}
	switch {
	case hazards > 0:
		return fmt.Sprintf("%s, %s%s: the upgrade is not safe", plural.Count(hazards, "hazard"), plural.Count(warnings, "warning"), s)
	case warnings > 0:
		return fmt.Sprintf("no hazards, %s%s", plural.Count(warnings, "warning"), s)
	}
	return "no hazards" + s
}
