package status

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/duration"
)

// Stuck is how long a machine may be provisioning or deleting before
// kbook status calls it a likely cause rather than progress. CAPI's own
// default for a machine to become healthy (MachineHealthCheck's
// nodeStartupTimeout) is 10 minutes.
const Stuck = 10 * time.Minute

// movingPhases are the Machine phases on the way to Running or gone.
var movingPhases = map[string]bool{"Pending": true, "Provisioning": true, "Provisioned": true, "Deleting": true}

// causes names the likely causes of a failing tree, most fundamental
// first: what kcm needs before it installs anything (the template, the
// Credential, the providers), then the Helm release (a chart that does not
// render), then the first failing CAPI object. Machines being provisioned
// or deleted for less than Stuck are progress, not causes.
func causes(root *Node, now time.Time) (out, progress []string) {
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	find := func(kind string) *Node {
		for _, c := range root.Children {
			if c.Kind == kind {
				return c
			}
		}
		return nil
	}
	if t := find(kindClusterTemplate); t != nil {
		switch {
		case t.Missing:
			add(fmt.Sprintf("template missing: the ClusterTemplate %s does not exist in this namespace (kcm: TemplateReady=False)", t.Name))
		case t.Ready == "False":
			add(fmt.Sprintf("template invalid: the ClusterTemplate %s is not valid: %s", t.Name, t.Message))
		}
	}
	if c := find(kindCredential); c != nil {
		switch {
		case c.Missing:
			add(fmt.Sprintf("credential missing: the Credential %s does not exist in this namespace", c.Name))
		case c.Ready == "False":
			add(fmt.Sprintf("credential not ready: the Credential %s is not ready%s", c.Name, colon(c.Message)))
		}
	}
	for _, cond := range root.Conditions {
		if cond.Status != "False" {
			continue
		}
		switch {
		case strings.Contains(cond.Message, "required providers are not deployed") || strings.Contains(cond.Message, "does not satisfy deployed"):
			add("provider not exposed: " + cond.Message)
		case cond.Type == "CredentialReady":
			add("credential not ready: " + cond.Message)
		case cond.Type == "TemplateReady" && cond.Message != "":
			add("template not ready: " + cond.Message)
		case cond.Type == "HelmChartReady" && configRejected(cond.Message):
			add(fmt.Sprintf("config rejected by the template: kcm's dry run of the chart with spec.config failed, so it left the HelmRelease alone: %s", Compact(cond.Message)))
		case cond.Type == "HelmChartReady" && cond.Message != "":
			add("chart not ready: " + Compact(cond.Message))
		}
	}
	if hr := find(kindHelmRelease); hr != nil && hr.Ready == "False" {
		switch {
		case hr.Missing:
			add(fmt.Sprintf("not installed: kcm has not created the HelmRelease %s (see the ClusterDeployment's conditions)", hr.Name))
		case rendersBadly(hr.Message):
			add("chart failed to render with spec.config: " + hr.Message)
		default:
			add(fmt.Sprintf("Helm release failed (%s): %s", hr.Reason, hr.Message))
		}
	}
	if cl := find(kindCluster); cl != nil && cl.Missing && !strings.Contains(cl.Message, "does not serve") {
		if hr := find(kindHelmRelease); hr != nil && hr.Ready == "True" {
			add(fmt.Sprintf("no CAPI Cluster: the chart installed but rendered no Cluster named %s", cl.Name))
		}
	}
	walk(root, func(n *Node) {
		if n.Kind != kindMachine || n.Ready == "True" {
			return
		}
		if p, stuck := moving(n, now); p != "" && !stuck {
			progress = append(progress, p)
		}
	})
	if len(out) == 0 {
		if n := firstFailing(root, now); n != nil && n != root {
			if p, stuck := moving(n, now); stuck {
				add(p)
			} else {
				what := n.Kind + " " + n.Name
				if n.Role != "" {
					what = n.Role + " " + what
				}
				msg := n.Message
				if msg == "" && len(n.Events) > 0 {
					msg = n.Events[0].Reason + ": " + n.Events[0].Message
				}
				add(fmt.Sprintf("%s is not ready%s", strings.TrimSpace(what), colon(Compact(msg))))
			}
		}
	}
	return out, progress
}

// moving describes a machine on its way (provisioning, or being deleted),
// and whether it has been so for longer than Stuck; "" for any other.
func moving(n *Node, now time.Time) (desc string, stuck bool) {
	if n.Kind != kindMachine {
		return "", false
	}
	var since time.Time
	var is, has, detail string
	switch {
	case n.Deleting != nil:
		since, is, has = *n.Deleting, "being deleted", "deleting"
		for _, c := range n.Conditions {
			if c.Type == "Deleting" && c.Status == "True" && c.Message != "" {
				detail = " (" + Compact(c.Message) + ")"
			}
		}
	case n.Created != nil && (movingPhases[n.Phase] || n.Phase == "" && n.Ready == "Unknown" || now.Sub(*n.Created) <= Stuck):
		// Provisioning, or created and not yet ready for less than Stuck
		// (a machine that was Ready and fails within its first minutes is
		// named a cause once Stuck has passed, as a MachineHealthCheck's
		// nodeStartupTimeout would).
		since, is, has = *n.Created, "provisioning", "provisioning"
		switch n.Phase {
		case "", "Provisioning":
		case "Running":
			is, has = "starting", "starting"
		default:
			detail = " (phase " + n.Phase + ")"
		}
		if n.Message != "" {
			detail += ": " + clip(Compact(n.Message), 120)
		}
	default:
		return "", false
	}
	if age := now.Sub(since); age > Stuck {
		return fmt.Sprintf("Machine %s has been %s for %s, longer than the %s a machine normally takes%s", n.Name, has, duration.HumanDuration(age), duration.HumanDuration(Stuck), detail), true
	}
	return fmt.Sprintf("Machine %s is %s%s", n.Name, is, detail), false
}

func walk(n *Node, f func(*Node)) {
	f(n)
	for _, c := range n.Children {
		walk(c, f)
	}
}

// Compact puts a condition message on one line: Cluster API v1beta2
// aggregates its conditions as Markdown lists ("* InfrastructureReady:\n
// * VMProvisioned: WaitingForBootstrapData"), which become "InfrastructureReady:
// VMProvisioned: WaitingForBootstrapData, NodeProvisioned: ...; NodeHealthy: ...".
func Compact(msg string) string {
	var items []string
	var cur strings.Builder
	for _, line := range strings.Split(msg, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		item, bullet := strings.CutPrefix(trimmed, "* ")
		switch {
		case bullet && indent == 0:
			if cur.Len() > 0 {
				items = append(items, cur.String())
			}
			cur.Reset()
			cur.WriteString(item)
		case bullet && cur.Len() > 0:
			// A nested item follows its heading ("InfrastructureReady:")
			// after a space, its siblings after a comma.
			if strings.HasSuffix(cur.String(), ":") {
				cur.WriteString(" ")
			} else {
				cur.WriteString(", ")
			}
			cur.WriteString(item)
		default:
			if cur.Len() > 0 {
				cur.WriteString(" ")
			}
			cur.WriteString(item)
		}
	}
	if cur.Len() > 0 {
		items = append(items, cur.String())
	}
	return strings.Join(items, "; ")
}

// clip shortens s to at most n bytes, on a rune boundary, with "...".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func colon(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// configRejected recognises the failure of kcm's own check of spec.config
// (ClusterDeploymentReconciler.validateConfig, kcm v1.11: a client-only
// Helm dry-run install of the template's chart with the deployment's
// values), which stops it before it updates the HelmRelease.
func configRejected(msg string) bool {
	return strings.Contains(msg, "failed to validate template with provided configuration") || rendersBadly(msg)
}

// rendersBadly recognises Helm's template and schema errors in a
// HelmRelease message.
func rendersBadly(msg string) bool {
	for _, s := range []string{"execution error at", "parse error at", "template: ", "values don't meet the specifications of the schema", "error converting YAML to JSON", "unable to build kubernetes objects"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// firstFailing is the deepest first node that is not ready, so the cause
// is the object that fails, not the ones that wait for it. Machines on
// their way (for less than Stuck) are progress, and so are the objects
// above them that are not ready while they are.
func firstFailing(n *Node, now time.Time) *Node {
	for _, c := range n.Children {
		if f := firstFailing(c, now); f != nil {
			return f
		}
	}
	if n.Ready != "False" || n.Kind == "Workers" || n.Kind == "Other machines" || waiting(n, now) {
		return nil
	}
	return n
}

// waiting reports whether n is, or has below it, a machine on its way.
func waiting(n *Node, now time.Time) bool {
	if p, stuck := moving(n, now); p != "" {
		return !stuck
	}
	for _, c := range n.Children {
		if waiting(c, now) {
			return true
		}
	}
	return false
}
