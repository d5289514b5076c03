package runner

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner/kubecmd"
	"github.com/rogpeppe/go-internal/testscript"
)

// clusterAPI is what the runner asks the run's cluster about a shell
// block before it runs (a *kubecmd.Client answers).
type clusterAPI interface {
	ServesResource(arg string) (bool, error)
	ServesKind(apiVersion, kind string) (bool, error)
	HasNamespace(name string) (bool, error)
	HasNodes() (bool, error)
}

// maxManifest is the largest file given to kubectl -f that kbook reads
// for its kinds.
const maxManifest = 1 << 20

// clusterLacks decides, just before a block runs, whether the run's
// cluster lacks what the block asks of it (runbook.Kube): a resource type
// or a manifest's kind it does not serve (no CustomResourceDefinition
// defines it: the product that installs it is not installed here), or a
// namespace that does not exist and that the block does not make (what
// would have made it, an installation or a block that did not run, did
// not run here). Such a block would fail for what the page takes as
// already done, not for what it does: it is skipped, saying what it
// needs. A block that may install what kbook cannot read (helm install,
// kubectl apply -k or of a URL), or makes a CRD, is not asked about, nor
// is a block when the run has no cluster or the cluster does not answer.
func (x *execution) clusterLacks(ts *testscript.TestScript, st *runbook.Step) (shellRes, bool) {
	k := &st.Shell.Needs.Kube
	if k.Installs || (len(k.Types) == 0 && len(k.Kinds) == 0 && len(k.Files) == 0 && len(k.Namespaces) == 0 && k.Nodes == "") {
		return shellRes{}, false
	}
	c, ok := ts.Value(kubecmd.ClientKey{}).(clusterAPI)
	if !ok || c == nil {
		return shellRes{}, false
	}
	kinds := slices.Clone(k.Kinds)
	for _, f := range k.Files {
		data, err := readManifest(ts.MkAbs(f.Name))
		if err != nil {
			continue
		}
		for _, o := range runbook.ManifestKinds(string(data), 1) {
			o.Line = f.Line // the block's line that gives the file
			kinds = append(kinds, o)
		}
	}
	makes := slices.Clone(k.MakesNamespaces)
	for _, o := range kinds {
		switch {
		case o.Kind == "CustomResourceDefinition":
			return shellRes{}, false // it installs what it then uses
		case o.Kind == "Namespace" && o.APIVersion == "v1":
			makes = append(makes, o.Name)
		}
	}
	skip := func(format string, args ...any) (shellRes, bool) {
		return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf(format, args...)}, true
	}
	if k.Nodes != "" {
		if has, err := c.HasNodes(); err == nil && !has {
			return skip("needs a node: %s, and the run's cluster has none (kbook's local backend is an API server without kubelets; --cluster kind has nodes)", k.Nodes)
		}
	}
	for _, t := range k.Types {
		if served, err := c.ServesResource(t.Name); err == nil && !served {
			return skip("needs CRD %s: kubectl is given the resource type %s (line %d), which the run's cluster does not serve (no CustomResourceDefinition defines it: what installs it is not installed here)", t.Name, t.Name, t.Line)
		}
	}
	for _, o := range kinds {
		if served, err := c.ServesKind(o.APIVersion, o.Kind); err == nil && !served {
			return skip("needs CRD %s (%s): its manifest (line %d) is of a kind the run's cluster does not serve (no CustomResourceDefinition defines it: what installs it is not installed here)", o.Kind, o.APIVersion, o.Line)
		}
	}
	names := slices.Clone(k.Namespaces)
	for _, o := range kinds {
		if o.Namespace != "" {
			names = append(names, runbook.KubeRef{Name: o.Namespace, Line: o.Line})
		}
	}
	for _, n := range names {
		if slices.Contains(makes, n.Name) {
			continue
		}
		if has, err := c.HasNamespace(n.Name); err == nil && !has {
			return skip("needs the namespace %s (line %d), which the run's cluster does not have and the block does not make (what makes it, an installation or an earlier step, did not run here)", n.Name, n.Line)
		}
	}
	return shellRes{}, false
}

// filesLack decides, just before a block runs, whether a file one of its
// kubectl commands reads (-f, --from-file) is not there, where the block
// runs, and none of the page's blocks that did not run would have
// written it (then it is skipped after that block): nothing on the page
// made it, the reader is taken to have it (cosign.pub, which a command
// the page shows makes), and the block needs it.
func (x *execution) filesLack(ts *testscript.TestScript, st *runbook.Step) (shellRes, bool) {
	n := &st.Shell.Needs
	here := ts.MkAbs(".")
	for _, c := range n.Checkouts {
		if !inCheckout(here, c.Name) {
			return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf("works on a checkout (line %d), and where the block runs has no %s: the page runs it in a project's source the run does not have", c.Line, c.Name)}, true
		}
	}
	for _, c := range n.Paths {
		if o, lacks := x.fileLacks(st, ts.MkAbs(homePath(ts, c.Name)), c.Name, fmt.Sprintf("needs %s (line %d), which is not on this machine, nor where the block runs", c.Name, c.Line)); lacks {
			return o, true
		}
	}
	if len(n.Hosts) > 0 {
		h := n.Hosts[0]
		return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf("needs the machine %s (line %d), which the page reaches over the network: the page's hosts are not this run's", h.Name, h.Line)}, true
	}
	for _, l := range n.Listens {
		if c, err := net.DialTimeout("tcp", l.Name, 200*time.Millisecond); err == nil {
			c.Close()
			continue
		}
		return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf("fetches from %s (line %d), and nothing listens there: what the page serves there (a NodePort, a port-forward) does not run here", l.Name, l.Line)}, true
	}
	if n.Docker > 0 && !dockerDaemon(ts.Getenv("DOCKER_HOST")) {
		return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf("needs a running Docker daemon (docker, line %d), and this machine has none (no /var/run/docker.sock, no DOCKER_HOST)", n.Docker)}, true
	}
	for _, w := range n.Words {
		if strings.HasPrefix(w, "/") && system(w) && !strings.HasPrefix(w, "/dev/") {
			if _, err := os.Stat(w); err != nil {
				return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf("uses %s, which this machine does not have: a file of the host the page sets up", w)}, true
			}
		}
	}
	for _, w := range n.Writes {
		if system(w) {
			return shellRes{result: report.BlockSkipped, reason: fmt.Sprintf("writes %s, in the machine's own system folders: the page sets up the host it is about, and kbook changes no host's system", w)}, true
		}
	}
	if kc := n.Kubeconfig; kc.Name != "" {
		if o, lacks := x.fileLacks(st, ts.MkAbs(homePath(ts, kc.Name)), kc.Name, fmt.Sprintf("points KUBECONFIG at %s (line %d), which this machine does not have: the kubeconfig of the page's own cluster, not the run's", kc.Name, kc.Line)); lacks {
			return o, true
		}
	}
	for _, r := range n.Kube.Reads {
		if o, lacks := x.fileLacks(st, ts.MkAbs(r.Name), r.Name, fmt.Sprintf("needs the file %s (line %d), which is not where the block runs: no block of the page that ran wrote it, nor is a block of the page bound to it", r.Name, r.Line)); lacks {
			return o, true
		}
	}
	return shellRes{}, false
}

// fileLacks decides about a file the block needs, name as the page
// writes it, at path: there, nothing; else the block is skipped after the
// block of the page that did not run and would have written it, or, when
// none would have, skipped with why.
func (x *execution) fileLacks(st *runbook.Step, path, name, why string) (shellRes, bool) {
	if _, err := os.Stat(path); err == nil {
		return shellRes{}, false
	}
	name = filepath.Clean(name)
	if _, ok := x.page().lostFile(name); ok {
		return x.missing(st, []string{"f:" + name}), true
	}
	return shellRes{result: report.BlockSkipped, reason: why}, true
}

// homePath is name with a leading ~/ in the runbook's HOME, as bash
// reads it.
func homePath(ts *testscript.TestScript, name string) string {
	if rest, ok := strings.CutPrefix(name, "~/"); ok {
		return filepath.Join(ts.Getenv("HOME"), rest)
	}
	return name
}

// readManifest reads a file given to kubectl -f, when it is a file of a
// reasonable size.
func readManifest(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		// kubectl -f DIR: its manifests, not below.
		var all []byte
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			switch filepath.Ext(e.Name()) {
			case ".yaml", ".yml", ".json":
				if d, err := readManifest(filepath.Join(p, e.Name())); err == nil {
					all = append(append(all, d...), "\n---\n"...)
				}
			}
		}
		return all, nil
	}
	if fi.Size() > maxManifest {
		return nil, fmt.Errorf("%s: larger than %d bytes", p, maxManifest)
	}
	return os.ReadFile(p)
}

// lostFile reports whether a block of the page that did not run would
// have written the file or folder name (or a folder it is in), and the
// line of the last such block.
func (p *pageShell) lostFile(name string) (line int, ok bool) {
	for k, l := range p.lost {
		if f, isFile := strings.CutPrefix(k, "f:"); isFile && runbook.SameOrUnder(name, f) && l > line {
			line, ok = l, true
		}
	}
	return line, ok
}

// inCheckout reports whether dir holds what a command that works on a
// checkout needs: a Makefile or *.tf files in dir, a go.mod or .git in
// dir or a folder above it.
func inCheckout(dir, what string) bool {
	switch what {
	case "Makefile":
		for _, f := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				return true
			}
		}
		return false
	case "*.tf":
		m, _ := filepath.Glob(filepath.Join(dir, "*.tf"))
		return len(m) > 0
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, what)); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// systemDirs are the folders of a machine's own system: a block that
// writes there sets up the host (k0s's config, a systemd unit).
var systemDirs = []string{"/etc", "/usr", "/var", "/opt", "/lib", "/lib64", "/bin", "/sbin", "/boot", "/srv", "/sys", "/proc", "/root", "/run"}

// dockerDaemon reports whether a Docker daemon may answer: the socket
// DOCKER_HOST names (unix://PATH) or, without it, /var/run/docker.sock is
// there; a DOCKER_HOST of another scheme (tcp://, ssh://) may answer.
func dockerDaemon(host string) bool {
	sock := "/var/run/docker.sock"
	if host != "" {
		p, ok := strings.CutPrefix(host, "unix://")
		if !ok {
			return true
		}
		sock = p
	}
	_, err := os.Stat(sock)
	return err == nil
}

func system(p string) bool {
	p = filepath.Clean(p)
	for _, d := range systemDirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}
