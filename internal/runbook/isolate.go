package runbook

import (
	"fmt"
	"regexp"
	"strings"
)

// namespaceFlag is a namespace a command names literally (kubectl -n
// kcm-system, --namespace=kcm-system), not one from a variable.
var namespaceFlag = regexp.MustCompile(`(?:^|\s)(?:-n|--namespace)(?:=|\s+)["']?([a-z0-9][-a-z0-9.]*)`)

// namespaceKey is a namespace a manifest names (metadata.namespace).
var namespaceKey = regexp.MustCompile(`^\s*namespace:\s*["']?([a-z0-9][-a-z0-9.]*)["']?\s*$`)

// clusterKind is a manifest of a cluster-scoped kind.
var clusterKind = regexp.MustCompile(`^\s*kind:\s*["']?(Namespace|ClusterRole|ClusterRoleBinding|CustomResourceDefinition|StorageClass|PriorityClass|PersistentVolume|ValidatingWebhookConfiguration|MutatingWebhookConfiguration|APIService|IngressClass|RuntimeClass)["']?\s*$`)

// clusterCreate is a command that makes a cluster-scoped object.
var clusterCreate = regexp.MustCompile(`\bkubectl\s+create\s+(namespace|ns|clusterrole|clusterrolebinding|priorityclass)\b`)

// kubectlFlags are flags before a kubectl verb or resource type, each
// with its value when it has one (--context=x, --context x).
const kubectlFlags = `(?:--?[\w-]+(?:[= ]\S+)?\s+)*`

// clusterChange is a command that changes or deletes a cluster-scoped
// object that was there before the page (kubectl label ns default,
// kubectl delete clusterrole/x, kubectl taint nodes ...): what it leaves
// is every other runbook's to see.
var clusterChange = regexp.MustCompile(`\bkubectl\s+` + kubectlFlags + `(?:(label|annotate|patch|delete|edit|replace|set)\s+` + kubectlFlags +
	`(namespaces?|ns|nodes?|no|clusterroles?|clusterrolebindings?|crds?|customresourcedefinitions?|storageclass(?:es)?|sc|priorityclass(?:es)?|pc|persistentvolumes?|pv|ingressclass(?:es)?|runtimeclass(?:es)?|validatingwebhookconfigurations?|mutatingwebhookconfigurations?|apiservices?)(?:[/.\s]|$)` +
	`|(cordon|uncordon|drain|taint)\b)`)

// SharesCluster says why a page that runs its shell blocks changes what
// other runbooks on the same cluster see, "" when it does not: a block
// that is to run names a namespace of its own choosing (kubectl -n
// kcm-system, a manifest's namespace: in a heredoc or a file the page
// writes) rather than the runbook's, or makes a cluster-scoped object (a
// Namespace, ClusterRole, CRD, ...: kubectl create namespace, such a
// kind in a manifest), or changes or deletes one (kubectl label ns
// default, kubectl delete crd x, kubectl taint nodes). Such a page runs
// alone on the run's cluster, so that what it does and what its cleanup
// deletes meet no other runbook's objects. A runbook of testscript blocks alone is never such a page.
func (r *Runbook) SharesCluster() string {
	if r.shellWhy == "" {
		return ""
	}
	found := func(what string, line int) string {
		return fmt.Sprintf("%s (%s:%d)", what, r.Path, line)
	}
	for _, st := range r.Steps {
		sh := st.Shell
		if sh == nil || sh.Skip != "" || (sh.Provided != "" && !sh.Standin) {
			continue
		}
		for _, l := range sh.Script {
			if m := namespaceFlag.FindStringSubmatch(l.Text); m != nil && m[1] != "default" {
				return found("it names the namespace "+m[1], l.Num)
			}
			if m := namespaceKey.FindStringSubmatch(l.Text); m != nil && m[1] != "default" {
				return found("it names the namespace "+m[1], l.Num)
			}
			if m := clusterKind.FindStringSubmatch(l.Text); m != nil {
				return found("it makes a "+m[1]+", which is cluster-wide", l.Num)
			}
			if m := clusterCreate.FindStringSubmatch(l.Text); m != nil {
				return found("it makes a "+m[1]+", which is cluster-wide", l.Num)
			}
			if m := clusterChange.FindStringSubmatch(l.Text); m != nil {
				if m[3] != "" {
					return found("it runs kubectl "+m[3]+", which changes nodes, cluster-wide", l.Num)
				}
				return found("it runs kubectl "+m[1]+" on "+m[2]+", which are cluster-wide", l.Num)
			}
		}
	}
	for _, f := range r.Files {
		for i, l := range strings.Split(f.Content, "\n") {
			if m := namespaceKey.FindStringSubmatch(l); m != nil && m[1] != "default" {
				return found("its file "+f.Name+" names the namespace "+m[1], f.Line+1+i)
			}
			if m := clusterKind.FindStringSubmatch(l); m != nil {
				return found("its file "+f.Name+" makes a "+m[1]+", which is cluster-wide", f.Line+1+i)
			}
		}
	}
	return ""
}
