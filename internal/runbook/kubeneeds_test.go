package runbook

import (
	"fmt"
	"strings"
	"testing"
)

// needsOf parses one bash block on a page that runs its shell blocks.
func needsOf(t *testing.T, block string) Needs {
	t.Helper()
	rb, err := Parse("page.md", []byte("---\nrun: shell\n---\n\n```bash\n"+block+"\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rb.Steps) != 1 || rb.Steps[0].Shell == nil || rb.Steps[0].Shell.Syntax != nil {
		t.Fatalf("want one shell block that parses: %+v", rb.Steps)
	}
	return rb.Steps[0].Shell.Needs
}

// TestKubeNeeds: what a block asks of the run's cluster, read from its
// kubectl commands and the manifests they apply.
func TestKubeNeeds(t *testing.T) {
	refs := func(rs []KubeRef) string {
		var s []string
		for _, r := range rs {
			s = append(s, fmt.Sprintf("%s@%d", r.Name, r.Line))
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		name, block                     string
		types, namespaces, reads, makes string
		kinds                           string
		installs                        bool
	}{
		{name: "get, a list of types and -n", block: "kubectl get clusterprofiles,clustersummaries -n projectsveltos --show-labels",
			types: "clusterprofiles@6 clustersummaries@6", namespaces: "projectsveltos@6"},
		{name: "TYPE/NAME, --namespace=", block: "kubectl label sveltoscluster/mgmt --namespace=mgmt type=mgmt",
			types: "sveltoscluster@6", namespaces: "mgmt@6"},
		{name: "all and -A ask nothing", block: "kubectl get all -A"},
		{name: "a namespace by name", block: "kubectl annotate namespace team-a a=b", types: "namespace@6", namespaces: "team-a@6"},
		{name: "rollout's type is its second word", block: "kubectl rollout restart deployment/coredns -nkube-system",
			types: "deployment@6", namespaces: "kube-system@6"},
		{name: "logs -f follows, reads no file", block: "kubectl logs -f deploy/web"},
		{name: "-f a file: read and applied", block: "kubectl apply -f profile.yaml", reads: "profile.yaml@6"},
		{name: "--from-file KEY=PATH", block: "kubectl create secret generic k --from-file=cosign.pub=keys/cosign.pub", reads: "keys/cosign.pub@6"},
		{name: "a file the block writes is no read", block: "cat > p.yaml <<EOF\nkind: ConfigMap\napiVersion: v1\nmetadata:\n  name: c\n  namespace: web\nEOF\nkubectl apply -f p.yaml",
			kinds: "v1/ConfigMap web@7"},
		{name: "create namespace", block: "kubectl create ns demo && kubectl -n demo get pods", types: "pods@6", namespaces: "demo@6", makes: "demo"},
		{name: "create clusterrole --resource", block: "kubectl create clusterrole r --verb=get --resource=serviceimports.multicluster.x-k8s.io,pods",
			types: "serviceimports.multicluster.x-k8s.io@6 pods@6"},
		{name: "helm install installs", block: "helm install sveltos projectsveltos/projectsveltos -n projectsveltos --create-namespace", installs: true},
		{name: "apply of a URL installs", block: "kubectl apply -f https://example.com/crds.yaml", installs: true},
		{name: "a heredoc to stdin, two documents", block: "kubectl apply -f - <<EOF\napiVersion: config.projectsveltos.io/v1beta1\nkind: ClusterProfile\nmetadata:\n  name: p\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: n\nEOF",
			kinds: "config.projectsveltos.io/v1beta1/ClusterProfile@8 v1/Namespace@13"},
		{name: "a template's kinds, YAML or not", block: "kubectl apply -f - <<EOF\napiVersion: v1\nkind: ConfigMap\ndata:\n  x: {{ .Cluster.Name }}\nEOF",
			kinds: "v1/ConfigMap@8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := needsOf(t, c.block).Kube
			var kinds []string
			for _, o := range k.Kinds {
				s := fmt.Sprintf("%s/%s@%d", o.APIVersion, o.Kind, o.Line)
				if o.Namespace != "" {
					s = fmt.Sprintf("%s/%s %s@%d", o.APIVersion, o.Kind, o.Namespace, o.Line)
				}
				kinds = append(kinds, s)
			}
			got := []string{refs(k.Types), refs(k.Namespaces), refs(k.Reads), strings.Join(k.MakesNamespaces, " "), strings.Join(kinds, " "), fmt.Sprint(k.Installs)}
			want := []string{c.types, c.namespaces, c.reads, c.makes, c.kinds, fmt.Sprint(c.installs)}
			for i, what := range []string{"types", "namespaces", "reads", "makes namespaces", "kinds", "installs"} {
				if got[i] != want[i] {
					t.Errorf("%s: %q, want %q", what, got[i], want[i])
				}
			}
		})
	}
}

// TestNotForATerminal: lines that are no commands (a URL, JSON, a
// patch), commands that need a person (an editor), another user's home
// folder and a make that reads the folder's Makefile are read as such.
func TestNotForATerminal(t *testing.T) {
	for _, c := range []struct{ block, notCommand, human, homes string }{
		{block: "https://raw.githubusercontent.com/o/r/main/dashboard.json", notCommand: "line 6 is a URL, not a command (https://raw.githubusercontent.com/o/r/main/dashboard.json)"},
		{block: `{"auths":{"https://registry":{"auth":"x"}}}`, notCommand: "line 6 is JSON, not a command"},
		{block: "diff --git a/x.yaml b/x.yaml", notCommand: "line 6 is a patch (diff --git, the output of git diff), not a command"},
		{block: "kubectl edit clusterrole r", human: "kubectl edit clusterrole r opens an editor for a person to change and save (line 6)"},
		{block: "vi config.yaml", human: "vi config.yaml opens an editor for a person to change and save (line 6)"},
		{block: "tar -czf a.tgz -C ~alice/src/examples .", homes: "alice@6"},
		{block: "ls ~/src ~+ ~root"},
		{block: "diff a b && echo https://example.com"},
		{block: "ssh root@${HOST}", human: "ssh root@${HOST} opens a login shell on another machine for a person to type in (line 6)"},
		{block: "ssh -i key root@host uptime"},
		{block: "gpg --gen-key", human: "gpg --gen-key asks a person its questions at a terminal (line 6)"},
		{block: "kubectl ...", human: "fill in what ... elides (line 6)"},
		{block: "...", notCommand: "line 6 is an ellipsis (...), not a command"},
	} {
		n := needsOf(t, c.block)
		var homes []string
		for _, h := range n.Homes {
			if h.Name != "root" {
				homes = append(homes, fmt.Sprintf("%s@%d", h.Name, h.Line))
			}
		}
		if n.NotCommand != c.notCommand || n.Human != c.human || strings.Join(homes, " ") != c.homes {
			t.Errorf("%s: not a command %q, human %q, homes %q; want %q, %q, %q", c.block, n.NotCommand, n.Human, homes, c.notCommand, c.human, c.homes)
		}
	}
	for _, c := range []struct{ block, want string }{
		{"tar -czf a.tgz -C dir .\nmake deploy", "Makefile@7"},
		{"make -C addon-controller deploy", ""},
		{"go fmt ./... && go test ./...", "go.mod@6 go.mod@6"},
		{"git clone https://x/y && git -C y log", ""},
		{"git add . && git commit -m x", ".git@6 .git@6"},
		{"terraform init\nterraform apply", "*.tf@6 *.tf@7"},
	} {
		var got []string
		for _, r := range needsOf(t, c.block).Checkouts {
			got = append(got, fmt.Sprintf("%s@%d", r.Name, r.Line))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: checkouts %q, want %q", c.block, got, c.want)
		}
	}
	if n := needsOf(t, "tar -czf a.tgz -C dir ."); !strings.Contains(strings.Join(n.Writes, " "), "a.tgz") {
		t.Errorf("tar -czf: writes %q, want a.tgz", n.Writes)
	}
	if n := needsOf(t, "./tools/create.sh 7 && /var/lib/k0s/bin/containerd --root=/x && $BIN"); fmt.Sprint(n.Paths) != "[{./tools/create.sh 6} {/var/lib/k0s/bin/containerd 6}]" {
		t.Errorf("paths %v", n.Paths)
	}
}

// TestWrappedCommand: the command a wrapper runs is found after the
// wrapper's options, those that take a value included.
func TestWrappedCommand(t *testing.T) {
	for block, want := range map[string]string{
		"env -u _ kubectl get pods":             "env kubectl",
		"env -C /tmp -u HOME helm list":         "env helm",
		"sudo -u root -g adm systemctl restart": "sudo systemctl",
		"timeout -s INT 30 kubectl get pods -w": "timeout kubectl",
		"nice -n 5 make build":                  "nice make",
		"xargs -n 1 -P 4 kubectl delete ns":     "xargs kubectl",
		"env FOO=1 -i jq .":                     "env jq",
	} {
		if got := strings.Join(needsOf(t, block).Commands, " "); got != want {
			t.Errorf("%q: commands %q, want %q", block, got, want)
		}
	}
}

// TestPipeNeeds: a block whose output may outlive it, or that opens the
// session's descriptors again, is found (Needs.Pipe, its line); the
// runner keeps such blocks' output on a pipe.
func TestPipeNeeds(t *testing.T) {
	for _, c := range []struct {
		block string
		want  int
	}{
		{"N=1\necho \"block $N\" | tr a-z A-Z > out.txt\ncat out.txt", 0},
		{"kubectl get pods -o yaml | grep -c name 2>&1", 0},
		{"echo a\nkubectl port-forward svc/web 8080:80 &", 7},
		{"f() {\n  sleep 1 &\n}", 7},
		{"coproc cat", 6},
		{"echo a\nexec 3>&1", 7},
		{"source ./env.sh", 6},
		{". env.sh", 6},
		{"eval \"$CMD\"", 6},
		{"$CMD --version", 6},
		{"echo a | tee /dev/stderr", 6},
		{"echo a > /dev/stdout", 6},
		{"cat /proc/self/fd/0 >/dev/null", 6},
		{"echo a >/dev/null 2>&1", 0},
	} {
		if got := needsOf(t, c.block).Pipe; got != c.want {
			t.Errorf("%q: Pipe %d, want %d", c.block, got, c.want)
		}
	}
}
