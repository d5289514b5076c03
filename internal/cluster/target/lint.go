package target

import (
	"fmt"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/runbook"
)

// RuleClusterUndeclared is Lint's rule: a runbook that runs kubectl or
// helm against a cluster without asking for one.
const RuleClusterUndeclared = "cluster-undeclared"

// Registry holds Lint's rule (kbook check lists it in its help).
var Registry = findings.NewRegistry([]string{runbook.CategoryLint},
	findings.Rule{ID: RuleClusterUndeclared, Category: runbook.CategoryLint, Severity: findings.Warning,
		Title: "a step runs kubectl or helm against a cluster, and the runbook asks for none",
		Description: "kbook starts a cluster (and gives a runbook its namespace and KUBECONFIG) only for a runbook that needs one: `requires:` naming a backend (`cluster`, `local`, `kind`, `kubeconfig`, `k0rdent`, `kcm`) or an `api:` resource, `crds:`, a cluster condition, or an `await`/`assert`/`error` step. " +
			"A runbook that only execs kubectl or helm gets none, and the step fails on kubectl's `localhost:8080` default. Add `requires: [cluster]` to its front matter."},
)

// clientOnly are the subcommands of kubectl and helm that work without a
// cluster; any other subcommand of kubectl talks to one, and of helm
// those in helmCluster do.
var (
	kubectlClientOnly = map[string]bool{"kustomize": true, "completion": true, "config": true, "plugin": true, "help": true, "options": true}
	// valueFlags are the global flags before a subcommand that take
	// the next word as their value.
	valueFlags  = map[string]bool{"-n": true, "--namespace": true, "--context": true, "--kube-context": true, "--kubeconfig": true}
	helmCluster = map[string]bool{"install": true, "upgrade": true, "uninstall": true, "delete": true, "list": true, "ls": true, "status": true, "get": true, "rollback": true, "test": true, "history": true}
)

// Lint reports, once per runbook, the first step that runs kubectl or
// helm against a cluster in a runbook that does not need one (Needs).
func Lint(rb *runbook.Runbook) []findings.Finding {
	if Needs(rb) {
		return nil
	}
	for _, st := range rb.Steps {
		for _, l := range st.Script {
			if cmd := clusterCommand(l.Text); cmd != "" {
				return []findings.Finding{{File: rb.Path, Line: l.Num, Rule: RuleClusterUndeclared, Severity: findings.Warning,
					Message: fmt.Sprintf("exec %s needs a cluster, and this runbook asks for none: kbook starts none for it, so the step fails on kubectl's localhost:8080 default; add requires: [cluster] to the front matter", cmd)}}
			}
		}
	}
	return nil
}

// clusterCommand returns "kubectl SUB" or "helm SUB" when the script line
// execs one that talks to a cluster, else "".
func clusterCommand(line string) string {
	prog, args := runbook.ExecArgs(line)
	sub := ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--help" || a == "-h" || a == "--client" || a == "--dry-run=client":
			return ""
		case valueFlags[a]:
			i++ // its value is not the subcommand
		case sub == "" && !strings.HasPrefix(a, "-"):
			sub = a
		}
	}
	switch {
	case prog == "kubectl" && sub != "" && !kubectlClientOnly[sub]:
		return prog + " " + sub
	case prog == "helm" && helmCluster[sub]:
		return prog + " " + sub
	}
	return ""
}
