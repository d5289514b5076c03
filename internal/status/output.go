package status

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// WriteText writes the tree as clusterctl describe cluster does: one row
// per object (NAME READY REASON SINCE VERSION REPLICAS MESSAGE), failing
// objects followed by their failing conditions and latest events, then the
// upgrade in progress and the likely causes. Times are relative to now.
func WriteText(w io.Writer, t *Tree, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tREADY\tREASON\tSINCE\tVERSION\tREPLICAS\tMESSAGE")
	writeNode(tw, t.Root, "", "", now)
	tw.Flush()
	if u := t.Upgrade; u != nil {
		from := u.From
		if from == "" {
			from = "chart " + u.ChartFrom
		}
		state := "in progress"
		switch {
		case u.Done:
			state = "done"
		case u.Failed != "":
			state = "stopped"
		}
		fmt.Fprintf(w, "Upgrade %s: %s → %s", state, from, u.To)
		if u.ChartFrom != "" && u.ChartTo != "" && u.ChartFrom != u.ChartTo {
			fmt.Fprintf(w, " (chart %s → %s)", u.ChartFrom, u.ChartTo)
		}
		fmt.Fprintln(w)
		for _, s := range u.Steps {
			mark := "[ ]"
			if s.Done {
				mark = "[x]"
			}
			fmt.Fprintf(w, "  %s %s", mark, s.What)
			if s.Note != "" {
				fmt.Fprintf(w, " (%s)", s.Note)
			}
			fmt.Fprintln(w)
		}
		if u.Failed != "" {
			fmt.Fprintf(w, "  %s\n", u.Failed)
		}
	}
	if len(t.Progress) > 0 {
		fmt.Fprintln(w, "In progress:")
		for _, p := range t.Progress {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	if len(t.Causes) > 0 {
		fmt.Fprintln(w, "Likely cause:")
		for _, c := range t.Causes {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
	if t.Ready {
		fmt.Fprintln(w, "Ready: yes")
	} else {
		fmt.Fprintln(w, "Ready: no")
	}
}

func writeNode(w io.Writer, n *Node, prefix, childPrefix string, now time.Time) {
	since := ""
	if n.Since != nil {
		since = age(now, *n.Since)
	} else if n.Created != nil && n.Ready == "True" {
		since = age(now, *n.Created)
	}
	ready := n.Ready
	if n.Kind == "Workers" || n.Kind == "Other machines" {
		ready = ""
	}
	fmt.Fprintf(w, "%s%s\t%s\t%s\t%s\t%s\t%s\t%s\n", prefix, label(n), ready, n.Reason, since, n.Version, n.Replicas, oneLine(n.Message))
	if n.Ready == "False" && !n.Missing {
		detail := strings.TrimRight(childPrefix, " ")
		if len(n.Children) > 0 {
			detail = childPrefix + "│"
		}
		for _, c := range n.Conditions {
			if c.Type != "Ready" && c.Type != "Available" && c.Status == bad(c.Type) {
				fmt.Fprintf(w, "%s\t\t\t\t\t\tcondition %s=%s %s: %s\n", detail, c.Type, c.Status, c.Reason, oneLine(c.Message))
			}
		}
		for _, e := range n.Events {
			var when []string
			if e.Count > 1 {
				when = append(when, fmt.Sprintf("x%d", e.Count))
			}
			if e.Last != nil {
				when = append(when, age(now, *e.Last)+" ago")
			}
			fmt.Fprintf(w, "%s\t\t\t\t\t\tevent %s %s (%s): %s\n", detail, e.Type, e.Reason, strings.Join(when, ", "), oneLine(e.Message))
		}
	}
	for i, c := range n.Children {
		last := i == len(n.Children)-1
		branch, cont := "├─", "│ "
		if last {
			branch, cont = "└─", "  "
		}
		writeNode(w, c, childPrefix+branch, childPrefix+cont, now)
	}
}

// age is how long ago t was, as kubectl prints ages (0s for a clock
// ahead of now).
func age(now, t time.Time) string {
	if t.After(now) {
		return "0s"
	}
	return duration.HumanDuration(now.Sub(t))
}

func label(n *Node) string {
	switch {
	case n.Kind == "Workers" || n.Kind == "Other machines":
		return n.Kind
	case n.Count > 1:
		return fmt.Sprintf("%d Machines...", n.Count)
	}
	s := n.Kind + "/" + n.Name
	if n.Role != "" {
		s = n.Role + " - " + s
	}
	return s
}

// negative are the condition types for which True is the notable state
// (Cluster API v1beta2's negative polarity conditions, kstatus'
// Reconciling and Stalled): False is how they should be.
var negative = map[string]bool{"Paused": true, "Deleting": true, "Updating": true, "RollingOut": true, "ScalingUp": true, "ScalingDown": true, "Remediating": true, "Reconciling": true, "Stalled": true}

// bad is the status of a condition type worth showing on a failing object.
func bad(typ string) string {
	if negative[typ] {
		return "True"
	}
	return "False"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(Compact(s)), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
