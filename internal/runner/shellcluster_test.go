package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
)

// fakeCluster is a run's cluster that serves the resource types and
// kinds and has the namespaces it lists; its Prepare gives each runbook
// itself as the client the runner asks.
type fakeCluster struct {
	types, kinds, namespaces map[string]bool
}

func (c *fakeCluster) ID() string                       { return "fake" }
func (c *fakeCluster) Conditions() map[string]Condition { return nil }
func (c *fakeCluster) Prepare(_ context.Context, _ *runbook.Runbook, env *testscript.Env) (Session, error) {
	env.Values[kubecmd.ClientKey{}] = c
	return c, nil
}
func (c *fakeCluster) Diagnose(context.Context) string { return "" }
func (c *fakeCluster) Close(context.Context) error     { return nil }

func (c *fakeCluster) ServesResource(arg string) (bool, error) { return c.types[arg], nil }
func (c *fakeCluster) ServesKind(apiVersion, kind string) (bool, error) {
	return c.kinds[apiVersion+"/"+kind], nil
}
func (c *fakeCluster) HasNamespace(name string) (bool, error) { return c.namespaces[name], nil }
func (c *fakeCluster) HasNodes() (bool, error)                { return false, nil }

// TestShellClusterLacks: a block that asks the run's cluster for a
// resource type or a kind no CRD defines there, or a namespace nothing
// made, is skipped saying so, before it runs, and the blocks that use
// what it would have written are skipped after it; a block whose
// namespace an earlier block made, or that makes its own, runs; one that
// may install what it uses (helm install) is not asked; a file kubectl
// reads that no block wrote is a skip too, and so are a block that lists
// pods on a cluster without nodes, one that writes the host's /etc, one
// that runs a script that is not there and one that commits outside a
// git checkout. kubectl here is a stub that
// records that it ran.
func TestShellClusterLacks(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kubectl", "helm"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\necho "+name+" \"$@\" >> \"$WORK/ran\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	page := filepath.Join(dir, "page.md")
	src := "---\nrun: shell\n---\n\n" +
		"```bash\nkubectl get sveltosclusters -A > clusters.txt\n```\n\n" + // 5: no CRD
		"```bash\ncat clusters.txt\n```\n\n" + // 9: after 5
		"```bash\nkubectl apply -f - <<EOF\napiVersion: config.projectsveltos.io/v1beta1\nkind: ClusterProfile\nmetadata:\n  name: p\nEOF\n```\n\n" + // 13: no CRD
		"```bash\nkubectl -n projectsveltos get configmaps\n```\n\n" + // 22: no namespace
		"```bash\nkubectl create namespace demo\n```\n\n" + // 26: runs
		"```bash\nkubectl -n demo get configmaps\n```\n\n" + // 30: runs (the fake has demo)
		"```bash\nkubectl create namespace other && kubectl -n other get configmaps\n```\n\n" + // 34: makes its own
		"```bash\nhelm install x chart && kubectl get sveltosclusters\n```\n\n" + // 38: installs: not asked
		"```bash\nkubectl create secret generic k --from-file=cosign.pub\n```\n\n" + // 42: no file
		"```bash\nkubectl get pods -n demo\n```\n\n" + // 46: no node
		"```bash\necho x > /etc/conf.d/k0scontroller\n```\n\n" + // 50: the host's system
		"```bash\n./tools/create.sh 3\n```\n\n" + // 54: not here
		"```bash\ngit commit -m x\n```\n" // 58: no checkout
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &fakeCluster{
		types:      map[string]bool{"pods": true, "configmaps": true},
		kinds:      map[string]bool{},
		namespaces: map[string]bool{"demo": true},
	}
	r, err := New(Options{Parallel: 1, Target: c, Env: []string{"PATH=" + bin + ":" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Run(context.Background(), load(t, page))
	res := rep.Runbooks[0]
	want := map[int]string{
		5:  "skipped: needs CRD sveltosclusters: kubectl is given the resource type sveltosclusters (line 6), which the run's cluster does not serve",
		9:  "skipped: after L5: it uses clusters.txt",
		13: "skipped: needs CRD ClusterProfile (config.projectsveltos.io/v1beta1): its manifest (line 16) is of a kind the run's cluster does not serve",
		22: "skipped: needs the namespace projectsveltos (line 23), which the run's cluster does not have and the block does not make",
		26: "passed",
		30: "passed",
		34: "passed",
		38: "passed",
		42: "skipped: needs the file cosign.pub (line 43), which is not where the block runs",
		46: "skipped: needs a node: kubectl get pods (line 47) lists what runs on nodes, and the run's cluster has none",
		50: "skipped: writes /etc/conf.d/k0scontroller, in the machine's own system folders",
		54: "skipped: needs ./tools/create.sh (line 55), which is not on this machine, nor where the block runs",
		58: "skipped: works on a checkout (line 59), and where the block runs has no .git",
	}
	for _, st := range res.Steps {
		if st.Shell == nil {
			continue
		}
		got := st.Shell.Result
		if got == report.BlockSkipped {
			got += ": " + st.Reason
		}
		if w, ok := want[st.Line]; !ok || !strings.HasPrefix(got, w) {
			t.Errorf("block at line %d: %s\nwant %s", st.Line, got, w)
		}
		delete(want, st.Line)
	}
	if len(want) > 0 {
		t.Errorf("no result for the blocks at %v:\n%s", want, dumpResult(res))
	}
}

func TestDockerDaemon(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "docker.sock")
	if dockerDaemon("unix://" + sock) {
		t.Errorf("a DOCKER_HOST socket that is not there answers")
	}
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if !dockerDaemon("unix://" + sock) {
		t.Errorf("a DOCKER_HOST socket that is there does not answer")
	}
	if !dockerDaemon("tcp://127.0.0.1:2375") {
		t.Errorf("a tcp DOCKER_HOST may answer")
	}
}
