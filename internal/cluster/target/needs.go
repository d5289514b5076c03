package target

import (
	"os"
	"os/exec"
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

// onPath reports whether a page's shell block finds the command: on
// PATH, kbook itself (the runner puts its folder first on the scripts'
// PATH), or kubectl (the local backend brings its own where PATH has
// none).
func onPath(c string) bool {
	if c == "kbook" || c == "kubectl" {
		return true
	}
	_, err := exec.LookPath(c)
	return err == nil
}

// Needs reports whether a runbook uses a cluster: in its requires or crds,
// in a [condition], with a Kubernetes command (await, assert, error), or
// with a shell block that runs kubectl, helm, clusterctl or kbook and
// may run (runbook.ShellMayRun: not skipped or provided by the page or
// its overlay, nor missing a command or what only such a block makes).
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
	var may map[*runbook.Step]bool
	for _, st := range rb.Steps {
		if st.Shell != nil {
			if may == nil {
				// A block that will not run needs nothing: a page
				// whose kubectl blocks are all skipped starts no
				// cluster.
				may = rb.ShellMayRun(onPath, func(v string) bool { _, ok := os.LookupEnv(v); return ok })
			}
			if may[st] && shellUsesCluster(st.Shell) {
				return true
			}
			continue
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
