package status

import (
	"fmt"
	"strings"
)

// causes names the likely causes of a failing tree, most fundamental
// first: what kcm needs before it installs anything (the template, the
// Credential, the providers), then the Helm release (a chart that does not
// render), then the first failing CAPI object.
func causes(root *Node) []string {
	var out []string
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
	if len(out) == 0 {
		if n := firstFailing(root); n != nil && n != root {
			what := n.Kind + " " + n.Name
			if n.Role != "" {
				what = n.Role + " " + what
			}
			msg := n.Message
			if msg == "" && len(n.Events) > 0 {
				msg = n.Events[0].Reason + ": " + n.Events[0].Message
			}
			add(fmt.Sprintf("%s is not ready%s", strings.TrimSpace(what), colon(msg)))
		}
	}
	return out
}

func colon(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
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
// is the object that fails, not the ones that wait for it.
func firstFailing(n *Node) *Node {
	for _, c := range n.Children {
		if f := firstFailing(c); f != nil {
			return f
		}
	}
	if n.Ready == "False" && n.Kind != "Workers" && n.Kind != "Other machines" {
		return n
	}
	return nil
}
