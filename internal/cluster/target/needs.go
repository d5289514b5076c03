package target

import (
	"strings"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
)

// clusterWords are the requirements and conditions that need a cluster.
var clusterWords = map[string]bool{"cluster": true, cluster.Local: true, cluster.Kind: true, cluster.Kubeconfig: true, "k0rdent": true, "kcm": true, "nodes": true}

// clusterPrograms are the programs whose use makes a shell block need the
// cluster (its KUBECONFIG).
var clusterPrograms = map[string]bool{"kubectl": true, "helm": true, "clusterctl": true, "kbook": true}

// shellUsesCluster reports whether a shell block runs a program that
// talks to the cluster.
func shellUsesCluster(sh *runbook.Shell) bool {
	for _, l := range sh.Script {
		for _, w := range strings.FieldsFunc(l.Text, func(r rune) bool { return strings.ContainsRune(" \t|;&()`$\"'", r) }) {
			if clusterPrograms[w] {
				return true
			}
		}
	}
	return false
}

// Needs reports whether a runbook uses a cluster: in its requires or crds,
// in a [condition], with a Kubernetes command (await, assert, error), or
// with a shell block that runs kubectl, helm, clusterctl or kbook.
// Only such runbooks get a namespace, and a run starts a cluster only if
// one of its runbooks needs it.
func Needs(rb *runbook.Runbook) bool {
	if len(rb.Meta.CRDs) > 0 {
		return true
	}
	for _, r := range rb.Meta.Requires {
		if clusterWords[r] || strings.HasPrefix(r, "api:") {
			return true
		}
	}
	cmds := kubecmd.Commands()
	for _, st := range rb.Steps {
		if st.Shell != nil && shellUsesCluster(st.Shell) {
			return true
		}
		for _, l := range st.Script {
			for _, w := range strings.Fields(l.Text) {
				if strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]") {
					c := strings.TrimPrefix(strings.Trim(w, "[]"), "!")
					if clusterWords[c] || strings.HasPrefix(c, "api:") {
						return true
					}
					continue
				}
				if w != "!" {
					if cmds[w] != nil {
						return true
					}
					break
				}
			}
		}
	}
	return false
}
