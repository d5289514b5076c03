package target

import (
	"strings"

	"github.com/k0rdent/kbook/internal/cluster"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
)

// clusterWords are the requirements and conditions that need a cluster.
var clusterWords = map[string]bool{"cluster": true, cluster.Local: true, cluster.Kind: true, cluster.Kubeconfig: true, "k0rdent": true, "kcm": true, "nodes": true}

// Needs reports whether a runbook uses a cluster: in its requires or crds,
// in a [condition], or with a Kubernetes command (await, assert, error).
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
