package runbook

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/syntax"
)

// Kube is what a shell block asks of the run's cluster, as its kubectl
// commands and the manifests they apply say (read, never run): the
// resource types and kinds it uses, which a cluster without their
// CustomResourceDefinitions does not serve, and the namespaces it names,
// which a cluster where nothing made them does not have. The runner asks
// the cluster just before the block runs, so that a block that needs what
// a product's installation would have made (its CRDs, its namespace) is
// skipped saying so, whatever the product.
type Kube struct {
	// Types are the resource types kubectl is given (kubectl get
	// sveltosclusters, kubectl label sveltoscluster/mgmt), as written.
	Types []KubeRef
	// Kinds are the objects of the manifests it writes in heredocs
	// and applies (kubectl apply, create, replace or delete -f).
	Kinds []KubeKind
	// Files are the files it gives those commands with -f: read when
	// the block runs, for their kinds, as they are then.
	Files []KubeRef
	// Reads are the local files any kubectl command of it reads (-f,
	// --from-file, --from-env-file), but those it writes itself.
	Reads []KubeRef
	// Namespaces are the namespaces its kubectl commands name (-n,
	// --namespace), as written.
	Namespaces []KubeRef
	// MakesNamespaces are the namespaces it creates (kubectl create
	// namespace).
	MakesNamespaces []string
	// Nodes says what of it needs the cluster's nodes (kubectl run,
	// exec, logs, drain; get nodes or pods), with the line; "" when
	// nothing does.
	Nodes string
	// Installs is set when it may install what the cluster serves in
	// ways kbook cannot read (helm install or upgrade, kubectl apply -k
	// or of a URL): then nothing of the above is asked.
	Installs bool
}

// KubeRef is a name a block gives kubectl, at its source line.
type KubeRef struct {
	Name string
	Line int
}

// KubeKind is one object of a manifest: its apiVersion, kind and
// metadata.namespace, at the source line of its kind.
type KubeKind struct {
	APIVersion, Kind, Namespace, Name string
	Line                              int
}

// kubectlValueFlags are kubectl's flags that take the next word as their
// value (when not written flag=value).
var kubectlValueFlags = map[string]bool{
	"-n": true, "--namespace": true, "--context": true, "--kubeconfig": true, "--cluster": true, "--user": true,
	"-s": true, "--server": true, "-l": true, "--selector": true, "-o": true, "--output": true, "-f": true,
	"--filename": true, "-c": true, "--container": true, "--field-selector": true, "-L": true, "--label-columns": true,
	"--sort-by": true, "-p": true, "--patch": true, "--type": true, "-k": true, "--kustomize": true, "--for": true,
	"--timeout": true, "--template": true, "--as": true, "--as-group": true, "--token": true, "--from-file": true,
	"--from-literal": true, "--from-env-file": true, "--image": true, "--replicas": true, "--port": true,
	"--patch-file": true, "--resource": true, "--subresource": true, "--field-manager": true, "--chunk-size": true, "--request-timeout": true,
}

// typedVerbs are kubectl's verbs whose first argument is a resource type
// (or TYPE/NAME, or TYPE1,TYPE2); nestedVerbs' is their second.
var (
	typedVerbs  = map[string]bool{"get": true, "describe": true, "delete": true, "edit": true, "patch": true, "label": true, "annotate": true, "wait": true, "scale": true}
	nestedVerbs = map[string]bool{"rollout": true, "set": true}
	applyVerbs  = map[string]bool{"apply": true, "create": true, "replace": true, "delete": true}
)

// nodeVerbs are kubectl's verbs that need a node (a pod that runs, a
// node itself); nodeTypes and podTypes the types whose objects do.
var (
	nodeVerbs = map[string]bool{"run": true, "exec": true, "logs": true, "attach": true, "port-forward": true, "cp": true, "top": true, "debug": true, "drain": true, "cordon": true, "uncordon": true, "taint": true}
	nodeTypes = map[string]bool{"node": true, "nodes": true, "no": true}
	podTypes  = map[string]bool{"pod": true, "pods": true, "po": true}
)

// kubectl reads one kubectl command's arguments.
func (a *analysis) kubectl(args []string, words []*syntax.Word) {
	if a.inFunc != "" {
		return
	}
	k := &a.n.Kube
	line := func(i int) int { return a.line(words[i].Pos()) }
	var pos []int // the positional arguments' indexes
	var files []int
	var resources []KubeRef // create role's --resource
	// -f is kubectl logs' --follow, which takes no value.
	follow := kubectlVerb(args) == "logs"
	for i := 0; i < len(args); i++ {
		w := args[i]
		flag, val, hasVal := strings.Cut(w, "=")
		switch {
		case w == "--":
			i = len(args) // the command kubectl exec runs
			continue
		case follow && (w == "-f" || w == "--follow"):
			continue
		case strings.HasPrefix(w, "-n") && len(w) > 2 && !strings.HasPrefix(w, "--"):
			flag, val, hasVal = "-n", w[2:], true
		case !strings.HasPrefix(w, "-") || w == "-":
			pos = append(pos, i)
			continue
		}
		at := i
		if !hasVal && kubectlValueFlags[flag] && i+1 < len(args) {
			i++
			val, at = args[i], i
		} else if !hasVal {
			continue
		}
		switch flag {
		case "-n", "--namespace":
			if isNamespace(val) {
				k.Namespaces = append(k.Namespaces, KubeRef{val, line(at)})
			}
		case "-f", "--filename":
			files = append(files, at)
			a.kubeRead(val, words[at], line(at))
		case "--from-file", "--from-env-file":
			if _, p, ok := strings.Cut(val, "="); ok && flag == "--from-file" {
				val = p
			}
			a.kubeRead(val, words[at], line(at))
		case "--resource":
			resources = append(resources, KubeRef{val, line(at)})
		case "-k", "--kustomize":
			k.Installs = true
		}
	}
	if len(pos) == 0 {
		return
	}
	verb := args[pos[0]]
	if k.Nodes == "" {
		if nodeVerbs[verb] {
			k.Nodes = fmt.Sprintf("kubectl %s (line %d) needs a pod running on a node", verb, line(pos[0]))
		} else if typedVerbs[verb] && len(pos) > 1 {
			t, _, _ := strings.Cut(args[pos[1]], "/")
			for _, t := range strings.Split(t, ",") {
				if nodeTypes[t] || (podTypes[t] && (verb == "get" || verb == "describe" || verb == "wait")) {
					k.Nodes = fmt.Sprintf("kubectl %s %s (line %d) lists what runs on nodes", verb, t, line(pos[1]))
					break
				}
			}
		}
	}
	typeArg := 1
	if nestedVerbs[verb] {
		typeArg = 2
	}
	switch {
	case (typedVerbs[verb] || nestedVerbs[verb]) && len(files) == 0 && len(pos) > typeArg:
		first := args[pos[typeArg]]
		if strings.Contains(first, "/") {
			for _, i := range pos[typeArg:] {
				if t, _, ok := strings.Cut(args[i], "/"); ok {
					a.kubeType(t, line(i))
				}
			}
			break
		}
		for _, t := range strings.Split(first, ",") {
			a.kubeType(t, line(pos[typeArg]))
		}
		if (first == "namespace" || first == "namespaces" || first == "ns") && verb != "get" {
			// kubectl annotate namespace team-a: that namespace
			for _, i := range pos[typeArg+1:] {
				if isNamespace(args[i]) {
					k.Namespaces = append(k.Namespaces, KubeRef{args[i], line(i)})
				}
			}
		}
	case verb == "create" && len(pos) > 1 && (args[pos[1]] == "role" || args[pos[1]] == "clusterrole"):
		for _, r := range resources {
			for _, t := range strings.Split(r.Name, ",") {
				if t, _, _ = strings.Cut(t, "/"); t != "*" {
					a.kubeType(t, r.Line)
				}
			}
		}
	case verb == "create" && len(pos) > 2 && (args[pos[1]] == "namespace" || args[pos[1]] == "ns"):
		if isNamespace(args[pos[2]]) {
			add(&k.MakesNamespaces, args[pos[2]])
		}
	}
	if applyVerbs[verb] {
		for _, i := range files {
			switch f := args[i]; {
			case f == "-":
				a.kubeStdin = true
			case isURL(litPrefix(words[i])):
				k.Installs = true
			case f != "" && !strings.ContainsAny(f, "*?"):
				k.Files = append(k.Files, KubeRef{f, line(i)})
			}
		}
	}
}

// kubectlVerb is the first of kubectl's arguments that is neither a
// flag nor a global flag's value.
func kubectlVerb(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case slices.Contains(valueFlags, a):
			i++
		case a != "" && !strings.HasPrefix(a, "-"):
			return a
		}
	}
	return ""
}

// kubeRead records a local file kubectl reads: a literal path, not
// standard input nor a URL.
func (a *analysis) kubeRead(p string, w *syntax.Word, line int) {
	if p == "" || p == "-" || isURL(litPrefix(w)) || litWord(w) == "" || strings.ContainsAny(p, "*?$") {
		return
	}
	a.n.Kube.Reads = append(a.n.Kube.Reads, KubeRef{p, line})
}

// kubeType records a resource type kubectl is given, unless it is one
// kubectl knows without the server (all) or not a literal name.
func (a *analysis) kubeType(t string, line int) {
	if t == "" || t == "all" || strings.ContainsAny(t, "$*?") {
		return
	}
	if !slices.ContainsFunc(a.n.Kube.Types, func(r KubeRef) bool { return r.Name == t }) {
		a.n.Kube.Types = append(a.n.Kube.Types, KubeRef{t, line})
	}
}

// namespaceName is a namespace's name: a DNS label.
var namespaceName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func isNamespace(s string) bool { return len(s) <= 63 && namespaceName.MatchString(s) }

// heredoc records the text of a heredoc of the block, its expansions
// read as a word of their own, at its first line.
func (a *analysis) heredoc(r *syntax.Redirect) {
	if a.inFunc != "" || r.Hdoc == nil {
		return
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(l.Value)
		} else {
			b.WriteString("x")
		}
	}
	a.heredocs = append(a.heredocs, heredocText{b.String(), a.line(r.Hdoc.Pos())})
}

type heredocText struct {
	text string
	line int
}

// kubeDone completes what a block asks of the cluster once it is read:
// the manifests of its heredocs when it applies any, the namespaces those
// name and make.
func (a *analysis) kubeDone() {
	k := &a.n.Kube
	if len(k.Files) == 0 && !a.kubeStdin {
		return
	}
	for _, h := range a.heredocs {
		k.Kinds = append(k.Kinds, ManifestKinds(h.text, h.line)...)
	}
}

// topKey is a manifest's top-level key, for a document YAML cannot read
// (a template).
var topKey = regexp.MustCompile(`^(apiVersion|kind):[ \t]*["']?([^"'\s#]+)`)

// ManifestKinds reads the objects of YAML manifests: each document's
// apiVersion, kind and metadata's namespace and name, the kind's line
// counted from first, the text's first line. A document YAML cannot read
// (a template with {{ }}) gives its top-level apiVersion and kind; a
// document with neither gives nothing.
func ManifestKinds(text string, first int) []KubeKind {
	var out []KubeKind
	lines := strings.Split(text, "\n")
	start := 0
	for i := 0; i <= len(lines); i++ {
		if i < len(lines) && !strings.HasPrefix(lines[i], "---") {
			continue
		}
		if k, ok := manifestKind(lines[start:i], first+start); ok {
			out = append(out, k)
		}
		start = i + 1
	}
	return out
}

func manifestKind(lines []string, first int) (KubeKind, bool) {
	var k KubeKind
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(strings.Join(lines, "\n")), &doc); err == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			key, v := m.Content[i].Value, m.Content[i+1]
			switch key {
			case "apiVersion":
				k.APIVersion = v.Value
			case "kind":
				k.Kind, k.Line = v.Value, first+v.Line-1
			case "metadata":
				for j := 0; v.Kind == yaml.MappingNode && j+1 < len(v.Content); j += 2 {
					switch v.Content[j].Value {
					case "namespace":
						k.Namespace = v.Content[j+1].Value
					case "name":
						k.Name = v.Content[j+1].Value
					}
				}
			}
		}
	} else {
		for i, l := range lines {
			if m := topKey.FindStringSubmatch(l); m != nil {
				if m[1] == "apiVersion" {
					k.APIVersion = m[2]
				} else {
					k.Kind, k.Line = m[2], first+i
				}
			}
		}
	}
	if k.APIVersion == "" || k.Kind == "" || strings.ContainsAny(k.APIVersion+k.Kind, "{}$ ") {
		return KubeKind{}, false
	}
	if !isNamespace(k.Namespace) {
		k.Namespace = ""
	}
	return k, true
}
